// Fragment-shader programs: compiling against kiln's shared GLSL prelude, caching by name and
// variant, and setting uniforms.
//
// Every kiln program draws one full-screen triangle (no vertex buffers: the vertex shader makes
// it from gl_VertexID) and its fragment shader computes one output texel, i.e. the four output
// elements 4t..4t+3 of texel t, from gl_FragCoord and texelFetch; coordinates are never
// interpolated. Shapes and strides are uniforms, never baked into the source, so a new shape never
// recompiles. The prelude (see program.cpp) provides:
//
//   uniform int u_out_width;  uniform int u_out_count;      set by draw() for the output
//   VALUE, VALUE4, VALUE_SAMPLER                             float, vec4, sampler2D; int, ivec4,
//                                                            isampler2D with KILN_INT_VALUES;
//                                                            uint, uvec4, usampler2D with
//                                                            KILN_UINT_VALUES (values_variant)
//   out VALUE4 out_texel;                                    the texel to write
//   int output_texel();                                      t, from gl_FragCoord
//   ivec4 output_elements();                                 4t + (0,1,2,3)
//   vec4 finish_texel(vec4 v);                               zeroes components past u_out_count
//                                                            (ivec4 and uvec4 too)
//   float fetch_element(highp sampler2D t, int width, int i) element i of a tensor texture (int
//                                                            of an isampler2D, uint of a
//                                                            usampler2D)
//   vec4 fetch_texel(highp sampler2D t, int width, int texel)   (ivec4, uvec4 likewise)
//   float nan_value(); float inf_value();
//   int exponent_of(float v); float scale_by_pow2(float v, int k)   frexp and ldexp stand-ins
//
// and each input sampler `x` bound by draw() comes with `uniform int x_width`. Bodies that compute
// each output element on their own end with the shared main() of shader_mains.h.
#pragma once

#include <GLES3/gl3.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "backends/gpu_pixel/context.h"

namespace kiln::gpu_pixel {

class Program {
 public:
  // Compiles "#version 300 es" + `defines` + the prelude + `body` (which defines main()) and
  // links it with the full-screen-triangle vertex shader. kiln::Error with the compiler's log
  // (naming `name`) on failure. The context must be current.
  Program(const std::string& name, const std::string& defines, const std::string& body);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  GLuint id() const { return program_; }
  const std::string& name() const { return name_; }

  // Uniform setters for the program in use (draw() calls glUseProgram first). Names the
  // compiler optimized away are ignored, as GL does.
  GLint location(const char* uniform) const;
  void set(const char* uniform, int value) const;
  void set(const char* uniform, float value) const;
  void set(const char* uniform, std::span<const int> values) const;    // int array
  void set(const char* uniform, std::span<const float> values) const;  // float array

 private:
  std::string name_;
  GLuint program_ = 0;
  mutable std::unordered_map<std::string, GLint> locations_;
};

// A program variant built from optional features: the cache's variant name (the features joined
// by '+') and a #define line for each feature.
struct ProgramVariant {
  std::string name;
  std::string defines;

  // Adds `feature`, a GLSL macro name, when `on`.
  void add(bool on, const char* feature);
};

// The variant whose VALUE types suit textures of `format`: KILN_INT_VALUES for RGBA32I,
// KILN_UINT_VALUES for RGBA32UI, none for the float formats. A shader written in VALUE,
// VALUE4 and VALUE_SAMPLER (the data-movement ones) then copies any texture's values.
ProgramVariant values_variant(TextureFormat format);

class ProgramCache {
 public:
  explicit ProgramCache(Context& context) : context_(context) {}

  // The program named `name` + "/" + `variant`, compiled on first use from `defines` (usually
  // #define lines selecting the variant) and `body`. Callers pass the same defines and body for
  // the same key.
  const Program& get(const std::string& name, const std::string& variant,
                     const std::string& defines, const std::string& body);
  size_t size() const;

 private:
  Context& context_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Program>> programs_;
};

}  // namespace kiln::gpu_pixel
