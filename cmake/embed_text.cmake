# Writes a text file as a C++ raw string literal, for sources that need a file's text at run time
# (the GLSL the gpu-pixel backend compiles when it runs).
#   cmake -DINPUT=file -DOUTPUT=file.inc -P embed_text.cmake
# The output is the literal alone: `constexpr char kText[] =` followed by `#include "file.inc"`.
cmake_minimum_required(VERSION 3.25)
file(READ "${INPUT}" text)
string(FIND "${text}" ")kiln_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )kiln_text\"")
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "R\"kiln_text(@text@)kiln_text\"\n" @ONLY)
