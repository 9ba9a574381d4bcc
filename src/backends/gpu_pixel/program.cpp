#include "backends/gpu_pixel/program.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_pixel/gl_check.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// One triangle covering clip space [-1,1]^2: vertices (-1,-1), (3,-1), (-1,3).
constexpr const char* kVertexShader = R"(#version 300 es
void main() {
  vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(p, 0.0, 1.0);
}
)";

// Index math is all in highp int (32 bits, checked on the host to stay below 2^31); floats only
// carry values. Element i lives in texel i / 4 at component i % 4.
constexpr const char* kPrelude = R"(
precision highp float;
precision highp int;
precision highp sampler2D;
precision highp isampler2D;
precision highp usampler2D;

// The type of the values a program copies and writes: float, or the words of an integer texture
// when the program is built with KILN_INT_VALUES (RGBA32I) or KILN_UINT_VALUES (RGBA32UI).
// Data-movement shaders are written once in these names.
#if defined(KILN_INT_VALUES)
#define VALUE int
#define VALUE4 ivec4
#define VALUE_SAMPLER isampler2D
#elif defined(KILN_UINT_VALUES)
#define VALUE uint
#define VALUE4 uvec4
#define VALUE_SAMPLER usampler2D
#else
#define VALUE float
#define VALUE4 vec4
#define VALUE_SAMPLER sampler2D
#endif

uniform int u_out_width;  // output texture width, texels
uniform int u_out_count;  // output elements
out VALUE4 out_texel;

int output_texel() {
  ivec2 p = ivec2(gl_FragCoord.xy);  // pixel centers are at +0.5: truncation gives the pixel
  return p.y * u_out_width + p.x;
}

ivec4 output_elements() { return ivec4(4 * output_texel()) + ivec4(0, 1, 2, 3); }

// The components after the last element stay zero, so whoever reads the padding (readbacks,
// texel-for-texel kernels) sees zeros, never stale data.
vec4 finish_texel(vec4 v) {
  return mix(vec4(0.0), v, lessThan(output_elements(), ivec4(u_out_count)));
}

ivec4 finish_texel(ivec4 v) { return v * ivec4(lessThan(output_elements(), ivec4(u_out_count))); }
uvec4 finish_texel(uvec4 v) { return v * uvec4(lessThan(output_elements(), ivec4(u_out_count))); }

vec4 fetch_texel(highp sampler2D t, int width, int texel) {
  return texelFetch(t, ivec2(texel % width, texel / width), 0);
}
ivec4 fetch_texel(highp isampler2D t, int width, int texel) {
  return texelFetch(t, ivec2(texel % width, texel / width), 0);
}
uvec4 fetch_texel(highp usampler2D t, int width, int texel) {
  return texelFetch(t, ivec2(texel % width, texel / width), 0);
}

float fetch_element(highp sampler2D t, int width, int index) {
  return fetch_texel(t, width, index >> 2)[index & 3];
}
int fetch_element(highp isampler2D t, int width, int index) {
  return fetch_texel(t, width, index >> 2)[index & 3];
}
uint fetch_element(highp usampler2D t, int width, int index) {
  return fetch_texel(t, width, index >> 2)[index & 3];
}

// GLSL ES 3.00 has no frexp or ldexp. The unbiased binary exponent of a normal float:
int exponent_of(float v) { return int((floatBitsToUint(v) >> 23) & 0xffu) - 127; }
// v 2^k, exact while the result is a normal float (for |k| <= 252), built from exponent bits in
// two steps so that neither power of two leaves the float range.
float scale_by_pow2(float v, int k) {
  int half_k = k / 2;
  return v * uintBitsToFloat(uint(half_k + 127) << 23) *
         uintBitsToFloat(uint(k - half_k + 127) << 23);
}

float inf_value() { return uintBitsToFloat(0x7f800000u); }
float nan_value() { return uintBitsToFloat(0x7fc00000u); }
)";

GLuint compile(GLenum stage, const std::string& source, const std::string& name) {
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw Error("OpenGL ES: compiling the " +
                std::string(stage == GL_VERTEX_SHADER ? "vertex" : "fragment") +
                " shader of program '" + name + "' failed: " + log.c_str());
  }
  return shader;
}

}  // namespace

Program::Program(const std::string& name, const std::string& defines, const std::string& body)
    : name_(name) {
  const GLuint vertex = compile(GL_VERTEX_SHADER, kVertexShader, name);
  GLuint fragment = 0;
  try {
    fragment = compile(GL_FRAGMENT_SHADER,
                       "#version 300 es\n" + defines + "\n" + kPrelude + "\n" + body, name);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glLinkProgram(program_);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    GLint length = 0;
    glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program_, length, nullptr, log.data());
    glDeleteProgram(program_);
    throw Error("OpenGL ES: linking program '" + name + "' failed: " + log.c_str());
  }
  check_gl("OpenGL ES: building a program");
}

Program::~Program() { glDeleteProgram(program_); }

GLint Program::location(const char* uniform) const {
  auto it = locations_.find(uniform);
  if (it == locations_.end()) {
    it = locations_.emplace(uniform, glGetUniformLocation(program_, uniform)).first;
  }
  return it->second;
}

void Program::set(const char* uniform, int value) const { glUniform1i(location(uniform), value); }

void Program::set(const char* uniform, float value) const { glUniform1f(location(uniform), value); }

void Program::set(const char* uniform, std::span<const int> values) const {
  glUniform1iv(location(uniform), static_cast<GLsizei>(values.size()), values.data());
}

void Program::set(const char* uniform, std::span<const float> values) const {
  glUniform1fv(location(uniform), static_cast<GLsizei>(values.size()), values.data());
}

ProgramVariant values_variant(TextureFormat format) {
  ProgramVariant v;
  v.add(format == TextureFormat::Rgba32I, "KILN_INT_VALUES");
  v.add(format == TextureFormat::Rgba32UI, "KILN_UINT_VALUES");
  return v;
}

void ProgramVariant::add(bool on, const char* feature) {
  if (!on) return;
  name += std::string(name.empty() ? "" : "+") + feature;
  defines += std::string("#define ") + feature + "\n";
}

const Program& ProgramCache::get(const std::string& name, const std::string& variant,
                                 const std::string& defines, const std::string& body) {
  const std::string key = variant.empty() ? name : name + "/" + variant;
  // The context first, then the cache: the order every drawing thread takes them in.
  Context::Scope scope(context_);
  std::lock_guard lock(mutex_);
  auto it = programs_.find(key);
  if (it != programs_.end()) return *it->second;
  auto program = std::make_unique<Program>(key, defines, body);
  return *programs_.emplace(key, std::move(program)).first->second;
}

size_t ProgramCache::size() const {
  std::lock_guard lock(mutex_);
  return programs_.size();
}

}  // namespace kiln::gpu_pixel
