#include "backends/gl/softmax.h"

#include <string>

#include "backends/gl/draw.h"
#include "backends/gl/operand_checks.h"
#include "backends/gl/program.h"
#include "backends/gl/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gl {
namespace {

// Line r = o * inner + i holds X[o, 0..axis_len), i]. Stats element 2r is its maximum, 2r + 1
// its sum of exp(x - max); one texel holds the stats of lines 2t and 2t + 1.
constexpr const char* kStatsShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_axis_len;
uniform int u_inner;

vec2 line_stats(int line) {
  int o = line / u_inner;
  int start = o * u_axis_len * u_inner + (line - o * u_inner);
  // The first element seeds the maximum, as on the CPU.
  float m = fetch_element(x, x_width, start);
  for (int k = 1, index = start + u_inner; k < u_axis_len; ++k, index += u_inner) {
    float v = fetch_element(x, x_width, index);
    if (v > m) m = v;
  }
  float sum = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    sum += exp(fetch_element(x, x_width, index) - m);
  }
  return vec2(m, sum);
}
)";

constexpr const char* kNormalizeShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D stats;
uniform int stats_width;
uniform int u_axis_len;
uniform int u_inner;

float element(int e) {
  int o = e / (u_axis_len * u_inner);
  int line = o * u_inner + e % u_inner;
  float m = fetch_element(stats, stats_width, 2 * line);
  float sum = fetch_element(stats, stats_width, 2 * line + 1);
  float v = fetch_element(x, x_width, e);
#ifdef LOG_SOFTMAX
  return v - (m + log(sum));
#else
  return exp(v - m) * (1.0 / sum);
#endif
}
)";

}  // namespace

void Softmax::record(SoftmaxOp op, const SoftmaxShape& s, const TextureTensor& x,
                     TextureTensor& y) const {
  const bool log_softmax = op == SoftmaxOp::LogSoftmax;
  const std::string where = std::string(log_softmax ? "LogSoftmax" : "Softmax") + " on OpenGL ES";
  check(s.outer >= 0 && s.axis_len >= 0 && s.inner >= 0, where + ": negative size");
  const int64_t lines = s.outer * s.inner;
  const int64_t count = lines * s.axis_len;
  check(count <= kIndexLimit && 2 * lines <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
  expect_element_count(x, count, where, "X");
  expect_element_count(y, count, where, "Y");
  if (count == 0) return;

  const auto set_shape = [&](const Program& program) {
    program.set("u_axis_len", static_cast<int>(s.axis_len));
    program.set("u_inner", static_cast<int>(s.inner));
  };
  TextureTensor stats(context_, 2 * lines);
  const Program& stats_program =
      context_.programs().get("softmax_stats", "", "", std::string(kStatsShader) + kLineStatsMain);
  const DrawInput stats_inputs[] = {{"x", &x}};
  draw(context_, stats_program, stats, stats_inputs, [&] { set_shape(stats_program); });

  const Program& program = context_.programs().get(
      "softmax", log_softmax ? "LogSoftmax" : "Softmax", log_softmax ? "#define LOG_SOFTMAX\n" : "",
      std::string(kNormalizeShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &x}, {"stats", &stats}};
  draw(context_, program, y, inputs, [&] { set_shape(program); });
}

}  // namespace kiln::gl
