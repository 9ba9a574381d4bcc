// Softmax, LogSoftmax and Hardmax on the GPU-pixel backend: the kernel (softmax.h) and, at the
// end, the adapter that places ONNX nodes on it, over the [outer, n, inner] lines their
// definition (opdefs/softmax.h) resolves. The family in one file; the header is for the kernel's
// own tests.
#include "backends/gpu_pixel/softmax.h"

#include <string>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// A line's stats: for Softmax and LogSoftmax its maximum and its sum of exp(x - max); for
// Hardmax the index of its first maximum, split into two 16-bit halves because a float holds
// integers exactly only up to 2^24 and a line may be longer.
constexpr const char* kStatsShader = R"(
uniform highp sampler2D x;
uniform int x_width;

vec2 line_stats(int line) {
  int start = line_start(line);
  // The first element seeds the maximum and only a larger value moves it, as on the CPU: ties
  // keep the first, and a later NaN never wins (it compares false).
  float first = fetch_element(x, x_width, start);
  float m = first;
  int arg = 0;
  for (int k = 1, index = start + u_inner; k < u_axis_len; ++k, index += u_inner) {
    float v = fetch_element(x, x_width, index);
    if (v > m) {
      m = v;
      arg = k;
    }
  }
#ifdef HARDMAX
  // A NaN first element wins, as on the CPU. GLSL leaves comparisons with NaN undefined
  // (llvmpipe lets a later number replace a NaN maximum), so the loop alone does not ensure it.
  if (isnan(first)) arg = 0;
  return vec2(float(arg >> 16), float(arg & 0xffff));
#else
  float sum = 0.0;
  for (int k = 0, index = start; k < u_axis_len; ++k, index += u_inner) {
    sum += exp(fetch_element(x, x_width, index) - m);
  }
  return vec2(m, sum);
#endif
}
)";

// Every element from its line's stats.
constexpr const char* kApplyShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D stats;
uniform int stats_width;

#ifdef HARDMAX
float element(int e) {
  int line = line_of(e);
  int arg = int(fetch_element(stats, stats_width, 2 * line)) * 65536 +
            int(fetch_element(stats, stats_width, 2 * line + 1));
  return e == line_start(line) + arg * u_inner ? 1.0 : 0.0;
}
#else
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
#endif
)";

}  // namespace

void Softmax::record(SoftmaxOp op, const SoftmaxShape& s, const TextureTensor& x,
                     TextureTensor& y) const {
  const std::string where = std::string(op_type_of(op)) + " on OpenGL ES";
  check_lines_with_stats(s, where);
  const int64_t count = s.elements();
  expect_element_count(x, count, where, "X");
  expect_element_count(y, count, where, "Y");
  if (count == 0) return;

  // Softmax and LogSoftmax share their stats; only the apply draw tells them apart.
  ProgramVariant stats_variant;
  stats_variant.add(op == SoftmaxOp::Hardmax, "HARDMAX");
  TextureTensor stats(context_, 2 * s.lines());
  const Program& stats_program =
      context_.programs().get("softmax_stats", stats_variant.name, stats_variant.defines,
                              std::string(kLineIndexing) + kStatsShader + kLineStatsMain);
  const DrawInput stats_inputs[] = {{"x", &x}};
  // Two passes over each line: its maximum, then its sum of exponentials.
  draw(
      context_, stats_program, stats, stats_inputs, [&] { set_line_uniforms(stats_program, s); },
      s.loop_steps(kStatsLinesPerFragment, 2));

  ProgramVariant variant = stats_variant;
  variant.add(op == SoftmaxOp::LogSoftmax, "LOG_SOFTMAX");
  const Program& program =
      context_.programs().get("softmax", variant.name, variant.defines,
                              std::string(kLineIndexing) + kApplyShader + kElementMain);
  const DrawInput inputs[] = {{"x", &x}, {"stats", &stats}};
  draw(context_, program, y, inputs, [&] { set_line_uniforms(program, s); });
}

// ---- The adapter -----------------------------------------------------------------------------

namespace {

OpFactory softmax_factory(SoftmaxOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    // Float16 computes in float32 and rounds once (half_output.h).
    if (!float_or_half_inputs(q, reason)) return nullptr;
    const SoftmaxAttrs attrs = parse_softmax_attrs(q.info, op);
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const SoftmaxLines v = resolve_softmax(attrs, x, *node.node);
      const TextureTensor& xt = r.texture(0);
      draw_in_dtype(r, x, r.input(0).dtype(), [&](TextureTensor& y) {
        r.kernel<Softmax>().record(attrs.op, SoftmaxShape{v.outer, v.n, v.inner}, xt, y);
      });
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(softmax);
void register_softmax_ops(OpTable& t) {
  t.add("Softmax", softmax_factory(SoftmaxOp::Softmax));
  t.add("LogSoftmax", softmax_factory(SoftmaxOp::LogSoftmax));
  t.add("Hardmax", softmax_factory(SoftmaxOp::Hardmax));
}

}  // namespace kiln::gpu_pixel
