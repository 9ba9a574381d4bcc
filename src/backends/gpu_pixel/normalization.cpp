#include "backends/gpu_pixel/normalization.h"

#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kBatchNormShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D scale;
uniform int scale_width;
uniform highp sampler2D bias;
uniform int bias_width;
uniform highp sampler2D mean;
uniform int mean_width;
uniform highp sampler2D var;
uniform int var_width;
uniform int u_spatial;
uniform int u_channels;
uniform float u_epsilon;

float element(int e) {
  int c = (e / u_spatial) % u_channels;
  float k = fetch_element(scale, scale_width, c) /
            sqrt(fetch_element(var, var_width, c) + u_epsilon);
  return (fetch_element(x, x_width, e) - fetch_element(mean, mean_width, c)) * k +
         fetch_element(bias, bias_width, c);
}
)";

// A line's stats. MOMENTS: (mean, 1 / sqrt(var + epsilon)); RMS: (0, 1 / sqrt(mean(x^2) +
// epsilon)), so that the MOMENTS apply draw serves it; otherwise LP: (1 / ||line||_p, 0).
constexpr const char* kStatsShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform float u_epsilon;
uniform int u_p;

vec2 line_stats(int line) {
  int start = line_start(line);
#if defined(RMS)
  float squares = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    float v = fetch_element(x, x_width, index);
    squares += v * v;
  }
  return vec2(0.0, 1.0 / sqrt(squares / float(u_axis_len) + u_epsilon));
#elif defined(MOMENTS)
  float sum = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    sum += fetch_element(x, x_width, index);
  }
  float mean = sum / float(u_axis_len);
  float squares = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    float d = fetch_element(x, x_width, index) - mean;
    squares += d * d;
  }
  return vec2(mean, 1.0 / sqrt(squares / float(u_axis_len) + u_epsilon));
#else
  float acc = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    float v = fetch_element(x, x_width, index);
    acc += u_p == 1 ? abs(v) : v * v;
  }
  float norm = u_p == 1 ? acc : sqrt(acc);
  return vec2(norm > 0.0 ? 1.0 / norm : 0.0, 0.0);
#endif
}
)";

// MOMENTS (with HAS_BIAS) or the Lp scaling.
constexpr const char* kApplyShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D stats;
uniform int stats_width;
#ifdef MOMENTS
uniform highp sampler2D scale;
uniform int scale_width;
#ifdef HAS_BIAS
uniform highp sampler2D bias;
uniform int bias_width;
#endif
#endif
uniform int u_param_stride;
uniform int u_param_count;

float element(int e) {
  int line = line_of(e);
  float v = fetch_element(x, x_width, e);
#ifdef MOMENTS
  float mean = fetch_element(stats, stats_width, 2 * line);
  float inv_std = fetch_element(stats, stats_width, 2 * line + 1);
  int k = (e / u_param_stride) % u_param_count;
  v = (v - mean) * inv_std * fetch_element(scale, scale_width, k);
#ifdef HAS_BIAS
  v += fetch_element(bias, bias_width, k);
#endif
  return v;
#else
  return v * fetch_element(stats, stats_width, 2 * line);
#endif
}
)";

// One of each line's two stats (u_which: 0 or 1), as an output of one element per line.
constexpr const char* kStatsPickShader = R"(
uniform highp sampler2D stats;
uniform int stats_width;
uniform int u_which;

float element(int line) { return fetch_element(stats, stats_width, 2 * line + u_which); }
)";

void check_shape(const ChannelShape& s, const std::string& where) {
  check(s.batch >= 0 && s.channels >= 0 && s.spatial >= 0, where + ": negative size");
  check(s.batch * s.channels * s.spatial <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
}

}  // namespace

void Normalization::record_batch_norm(const ChannelShape& s, const TextureTensor& x,
                                      const TextureTensor& scale, const TextureTensor& bias,
                                      const TextureTensor& mean, const TextureTensor& var,
                                      float epsilon, TextureTensor& y) const {
  const std::string where = "BatchNormalization on OpenGL ES";
  check_shape(s, where);
  const int64_t count = s.batch * s.channels * s.spatial;
  expect_element_count(x, count, where, "X");
  expect_element_count(y, count, where, "Y");
  if (count == 0) return;
  expect_element_count(scale, s.channels, where, "scale");
  expect_element_count(bias, s.channels, where, "B");
  expect_element_count(mean, s.channels, where, "input_mean");
  expect_element_count(var, s.channels, where, "input_var");
  const Program& program =
      context_.programs().get("batch_norm", "", "", std::string(kBatchNormShader) + kElementMain);
  const DrawInput inputs[] = {
      {"x", &x}, {"scale", &scale}, {"bias", &bias}, {"mean", &mean}, {"var", &var}};
  draw(context_, program, y, inputs, [&] {
    program.set("u_spatial", static_cast<int>(s.spatial));
    program.set("u_channels", static_cast<int>(s.channels));
    program.set("u_epsilon", epsilon);
  });
}

void Normalization::record_instance_norm(const ChannelShape& s, const TextureTensor& x,
                                         const TextureTensor& scale, const TextureTensor& bias,
                                         float epsilon, TextureTensor& y) const {
  check_shape(s, "InstanceNormalization on OpenGL ES");
  record_lines({"InstanceNormalization",
                {s.batch * s.channels, s.spatial, 1},
                &scale,
                &bias,
                s.spatial,
                s.channels,
                epsilon,
                0},
               x, y);
}

void Normalization::record_group_norm(const ChannelShape& s, int64_t groups, bool per_group_params,
                                      const TextureTensor& x, const TextureTensor& scale,
                                      const TextureTensor& bias, float epsilon,
                                      TextureTensor& y) const {
  const std::string where = "GroupNormalization on OpenGL ES";
  check_shape(s, where);
  check(groups > 0 && s.channels % groups == 0, where + ": " + std::to_string(s.channels) +
                                                    " channels are not divisible by num_groups " +
                                                    std::to_string(groups));
  const int64_t block = s.channels / groups * s.spatial;
  record_lines({"GroupNormalization",
                {s.batch * groups, block, 1},
                &scale,
                &bias,
                per_group_params ? block : s.spatial,
                per_group_params ? groups : s.channels,
                epsilon,
                0},
               x, y);
}

void Normalization::record_layer_norm(int64_t rows, int64_t row_len, const TextureTensor& x,
                                      const TextureTensor& scale, const TextureTensor* bias,
                                      float epsilon, TextureTensor& y, TextureTensor* mean,
                                      TextureTensor* inv_std_dev) const {
  record_lines({"LayerNormalization",
                {rows, row_len, 1},
                &scale,
                bias,
                1,
                row_len,
                epsilon,
                0,
                false,
                {mean, inv_std_dev}},
               x, y);
}

void Normalization::record_rms_norm(int64_t rows, int64_t row_len, const TextureTensor& x,
                                    const TextureTensor& scale, float epsilon,
                                    TextureTensor& y) const {
  record_lines(
      {"RMSNormalization", {rows, row_len, 1}, &scale, nullptr, 1, row_len, epsilon, 0, true}, x,
      y);
}

void Normalization::record_lp_norm(int64_t outer, int64_t axis_len, int64_t inner, int p,
                                   const TextureTensor& x, TextureTensor& y) const {
  check(p == 1 || p == 2,
        "LpNormalization on OpenGL ES: p must be 1 or 2, got " + std::to_string(p));
  record_lines({"LpNormalization", {outer, axis_len, inner}, nullptr, nullptr, 1, 1, 0.0f, p}, x,
               y);
}

void Normalization::record_lines(const LineNorm& n, const TextureTensor& x,
                                 TextureTensor& y) const {
  const std::string where = std::string(n.op) + " on OpenGL ES";
  check_lines_with_stats(n.shape, where);
  const int64_t count = n.shape.elements();
  expect_element_count(x, count, where, "X");
  expect_element_count(y, count, where, "Y");
  if (count == 0) return;
  const bool moments = n.scale != nullptr;
  if (moments) {
    expect_element_count(*n.scale, n.param_count, where, "scale");
    if (n.bias) expect_element_count(*n.bias, n.param_count, where, "B");
  }

  TextureTensor stats(context_, 2 * n.shape.lines());
  const char* stats_kind = n.rms ? "rms" : moments ? "moments" : "lp";
  const char* stats_define = n.rms ? "#define RMS\n" : moments ? "#define MOMENTS\n" : "";
  const Program& stats_program =
      context_.programs().get("norm_stats", stats_kind, stats_define,
                              std::string(kLineIndexing) + kStatsShader + kLineStatsMain);
  const DrawInput stats_inputs[] = {{"x", &x}};
  // Moments walk each line twice (mean, then variance), a p-norm and the RMS once.
  draw(
      context_, stats_program, stats, stats_inputs,
      [&] {
        set_line_uniforms(stats_program, n.shape);
        stats_program.set("u_epsilon", n.epsilon);
        stats_program.set("u_p", n.lp_p);
      },
      n.shape.loop_steps(kStatsLinesPerFragment, moments && !n.rms ? 2 : 1));

  for (int which = 0; which < 2; ++which) {
    TextureTensor* out = n.stats_out[which];
    if (!out) continue;
    expect_element_count(*out, n.shape.lines(), where, which == 0 ? "Mean" : "InvStdDev");
    const Program& pick = context_.programs().get("norm_stats_pick", "", "",
                                                  std::string(kStatsPickShader) + kElementMain);
    const DrawInput pick_inputs[] = {{"stats", &stats}};
    draw(context_, pick, *out, pick_inputs, [&] { pick.set("u_which", which); });
  }

  ProgramVariant variant;
  variant.add(moments, "MOMENTS");
  variant.add(n.bias != nullptr, "HAS_BIAS");
  const Program& program =
      context_.programs().get("norm_apply", variant.name, variant.defines,
                              std::string(kLineIndexing) + kApplyShader + kElementMain);
  std::vector<DrawInput> inputs = {{"x", &x}, {"stats", &stats}};
  if (moments) inputs.push_back({"scale", n.scale});
  if (n.bias) inputs.push_back({"bias", n.bias});
  draw(context_, program, y, inputs, [&] {
    set_line_uniforms(program, n.shape);
    program.set("u_param_stride", static_cast<int>(n.param_stride));
    program.set("u_param_count", static_cast<int>(n.param_count));
  });
}

}  // namespace kiln::gpu_pixel
