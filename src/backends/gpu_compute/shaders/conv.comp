#version 450
// Conv as an implicit GEMM, any kernel, stride and dilation; see conv.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define ROW_KW 0
#define ROW_S 0
#include "conv.glsl"
