#include "backends/gl/softmax.h"

#include <string>

#include "backends/gl/draw.h"
#include "backends/gl/folded_lines.h"
#include "backends/gl/operand_checks.h"
#include "backends/gl/program.h"
#include "backends/gl/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gl {
namespace {

// A line's stats: its maximum and its sum of exp(x - max).
constexpr const char* kStatsShader = R"(
uniform highp sampler2D x;
uniform int x_width;

vec2 line_stats(int line) {
  int start = line_start(line);
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

float element(int e) {
  int line = line_of(e);
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
  check_lines_with_stats(s, where);
  const int64_t count = s.elements();
  expect_element_count(x, count, where, "X");
  expect_element_count(y, count, where, "Y");
  if (count == 0) return;

  TextureTensor stats(context_, 2 * s.lines());
  const Program& stats_program = context_.programs().get(
      "softmax_stats", "", "", std::string(kLineIndexing) + kStatsShader + kLineStatsMain);
  const DrawInput stats_inputs[] = {{"x", &x}};
  draw(context_, stats_program, stats, stats_inputs, [&] { set_line_uniforms(stats_program, s); });

  const Program& program = context_.programs().get(
      "softmax", log_softmax ? "LogSoftmax" : "Softmax", log_softmax ? "#define LOG_SOFTMAX\n" : "",
      std::string(kLineIndexing) + kNormalizeShader + kElementMain);
  const DrawInput inputs[] = {{"x", &x}, {"stats", &stats}};
  draw(context_, program, y, inputs, [&] { set_line_uniforms(program, s); });
}

}  // namespace kiln::gl
