// LRN on the GPU-pixel backend: float32 X of shape (N, C, ...), the window and coefficients its
// definition (opdefs/local_norm.h) parses for the CPU kernel too. Other dtypes stay on the CPU.
//
// One draw: each output element sums the squares of its channel window in float, in the CPU's
// order, and scales x by (bias + alpha / size * sum)^-beta as exp(-beta * log(...)), as the CPU's
// float32 kernel does, with the shared math (shader_math.glsl).
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <string>

#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "opdefs/local_norm.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_channels;
uniform int u_spatial;
uniform int u_before;
uniform int u_after;
uniform float u_bias;
uniform float u_scale;     // alpha / size
uniform float u_neg_beta;  // -beta

float element(int e) {
  int row = e / u_spatial;  // n * C + c
  int s = e - row * u_spatial;
  int c = row % u_channels;
  int first = (row - c) * u_spatial + s;  // channel 0 of the same n and position
  int lo = max(0, c - u_before);
  int hi = min(u_channels - 1, c + u_after);
  float acc = 0.0;
  for (int cc = lo; cc <= hi; ++cc) {
    float v = fetch_element(x, x_width, first + cc * u_spatial);
    acc += v * v;
  }
  return fetch_element(x, x_width, e) * exp_(u_neg_beta * log_(u_bias + u_scale * acc));
}
)";

class Lrn {
 public:
  explicit Lrn(Context& context) : context_(context) {}

  void record(const LrnAttrs& a, const Shape& shape, const TextureTensor& x,
              TextureTensor& y) const {
    const std::string where = "LRN on OpenGL ES";
    expect_element_count(x, shape.element_count(), where, "X");
    expect_element_count(y, shape.element_count(), where, "Y");
    if (y.element_count() == 0) return;
    int64_t spatial = 1;
    for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
    const Program& program = context_.programs().get(
        "lrn", "", "", std::string(shader_math_glsl()) + kShader + kElementMain);
    const DrawInput inputs[] = {{"x", &x}};
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_channels", static_cast<int>(shape[1]));
          program.set("u_spatial", static_cast<int>(spatial));
          program.set("u_before", static_cast<int>(std::min<int64_t>(a.before, shape[1])));
          program.set("u_after", static_cast<int>(std::min<int64_t>(a.after, shape[1])));
          program.set("u_bias", static_cast<float>(a.bias));
          program.set("u_scale", static_cast<float>(a.alpha / static_cast<double>(a.size)));
          program.set("u_neg_beta", static_cast<float>(-a.beta));
        },
        // Per element: the window, at most every channel.
        4 * std::min<int64_t>(a.size, shape[1]));
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn lrn(const LrnAttrs& attrs) {
  return [attrs](OpRecorder& r) {
    const Shape& shape = r.shape(0);
    // The CPU kernel reports inputs of rank below 2.
    if (shape.size() < 2) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "rank below 2");
    if (shape.element_count() > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    TextureTensor& y = r.output(0, shape);
    if (shape.element_count() == 0) return;
    r.kernel<Lrn>().record(attrs, shape, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(lrn);
void register_lrn_ops(OpTable& t) {
  t.add("LRN", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() < 2) {
      reason = "an input of rank below 2";
      return nullptr;
    }
    return lrn(parse_lrn_attrs(q.info));
  });
}

}  // namespace kiln::gpu_pixel
