// DFT and STFT on the GPU-pixel backend: float32 signals (and windows), transformed directly (n
// terms per output bin) to about twice float's precision (wide_float.h), with the sizes their
// definition (opdefs/signal.h) resolves for the CPU kernels too. Other float types stay on the
// CPU, and so do transforms whose fragments would loop beyond the device's budget.
//
// One draw: a fragment computes the bins its output texel holds (two complex bins, or four real
// values of an inverse half spectrum), each summing x[j] * e^(-+2 pi i j k / n) over the line,
// with twiddles the host computed in double. Lines are addressed by strides, so one program
// serves both ops: a DFT line is (outer, inner) of [outer, length, inner, components], an STFT
// line is (batch, frame), frame f starting at sample f * frame_step of [batch, length,
// components].
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/wide_float.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/wide_float.h"
#include "kiln/error.h"
#include "opdefs/signal.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// INVERSE (e^(+2 pi i j k / n) and a 1/n scale), HALF_SPECTRUM (the line holds bins 0..n/2 of a
// real signal's spectrum), WINDOW (STFT's window input) and BIN_FASTEST (the STFT's output
// order, bins inside frames) select the variant.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D twiddles;  // texel 2r: cos(2 pi r / n), texel 2r + 1: sin, as (hi, lo, rest)
uniform int twiddles_width;
#ifdef WINDOW
uniform highp sampler2D window;
uniform int window_width;
#endif
uniform int u_size0;  // an output bin r is (a, b, o): a = r % size0, b = r / size0 % size1
uniform int u_size1;
uniform int u_in_outer_stride;
uniform int u_in_inner_stride;
uniform int u_in_axis_stride;
uniform int u_in_count;  // elements of a line read: the rest are zeros (padding to n)
uniform int u_in_components;
uniform int u_out_components;
uniform int u_n;

// Element j of the line (j < n) as a complex value, zero beyond what the line holds. A half
// spectrum gives bins above n/2 as the conjugates of those below.
vec2 signal_at(int base, int j) {
  bool conjugate = false;
#ifdef HALF_SPECTRUM
  if (j > u_n / 2) {
    j = u_n - j;
    conjugate = true;
  }
#endif
  if (j >= u_in_count) return vec2(0.0);
  int e = base + j * u_in_axis_stride;
  vec2 v = vec2(fetch_element(x, x_width, e),
                u_in_components == 2 ? fetch_element(x, x_width, e + 1) : 0.0);
  if (conjugate) v.y = -v.y;
  return v;
}

// Output bin r as (real, imaginary).
vec2 bin(int r) {
  int a = r % u_size0;
  int rest = r / u_size0;
  int b = rest % u_size1;
  int o = rest / u_size1;
#ifdef BIN_FASTEST
  int k = a;
  int i = b;
#else
  int k = b;
  int i = a;
#endif
  int base = o * u_in_outer_stride + i * u_in_inner_stride;
#ifdef INVERSE
  const bool inverse = true;
#else
  const bool inverse = false;
#endif
  // Forward: re += a c + b s, im += b c - a s; inverse: re += a c - b s, im += b c + a s.
  Wide re = Wide(0.0, 0.0);
  Wide im = Wide(0.0, 0.0);
  int turn = 0;  // j * k mod n
  for (int j = 0; j < u_n; ++j) {
    vec2 v = signal_at(base, j);
    Wide re_part = Wide(v.x, 0.0);
    Wide im_part = Wide(v.y, 0.0);
#ifdef WINDOW
    // The windowed value kept exact, as the CPU's double product is.
    if (j < u_in_count) {
      float w = fetch_element(window, window_width, j);
      re_part = wide_mul(v.x, w);
      im_part = wide_mul(v.y, w);
    }
#endif
    vec3 c = fetch_texel(twiddles, twiddles_width, 2 * turn).xyz;
    vec3 s = fetch_texel(twiddles, twiddles_width, 2 * turn + 1).xyz;
    re = wide_add(re, wide_product(re_part, c), false);
    re = wide_add(re, wide_product(im_part, s), inverse);
    if (u_out_components == 2) {
      im = wide_add(im, wide_product(im_part, c), false);
      im = wide_add(im, wide_product(re_part, s), !inverse);
    }
    turn += k;
    if (turn >= u_n) turn -= u_n;
  }
  vec2 result = vec2(wide_value(re), wide_value(im));
#ifdef INVERSE
  result /= float(u_n);
#endif
  return result;
}

void main() {
  ivec4 e = output_elements();
  vec4 v = vec4(0.0);
  if (u_out_components == 2) {
    // Elements 4t .. 4t + 3 are bins 2t and 2t + 1, real and imaginary.
    if (e.x < u_out_count) v.xy = bin(e.x / 2);
    if (e.z < u_out_count) v.zw = bin(e.z / 2);
  } else {
    for (int j = 0; j < 4; ++j) {
      if (e[j] >= u_out_count) break;
      v[j] = bin(e[j]).x;
    }
  }
  out_texel = finish_texel(v);
}
)";

// One draw's addressing, in elements (see the shader's uniforms).
struct DftGeometry {
  int64_t size0 = 1, size1 = 1;
  int64_t in_outer_stride = 0, in_inner_stride = 0, in_axis_stride = 0;
  int64_t in_count = 0, in_components = 1;
  int64_t out_components = 2;
  int64_t n = 1;
  bool inverse = false, half_spectrum = false, bin_fastest = false;
};

// cos and sin of 2 pi r / n for r in [0, n), computed in double, as three floats each and a
// zero (one texel each).
std::vector<float> twiddle_table(int64_t n) {
  std::vector<float> table;
  table.reserve(static_cast<size_t>(n) * 8);
  for (int64_t r = 0; r < n; ++r) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
    push_wide(table, std::cos(angle));
    table.push_back(0.0f);
    push_wide(table, std::sin(angle));
    table.push_back(0.0f);
  }
  return table;
}

class Dft {
 public:
  explicit Dft(Context& context) : context_(context) {}

  // y = the transform of x's lines; `window` is null when there is none.
  void record(const DftGeometry& g, const TextureTensor& x, const TextureTensor* window,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    // The twiddles' low parts need float32 texels.
    if (context_.format() != TextureFormat::Rgba32F)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the transform needs float32 textures");
    TextureTensor twiddles(context_, 8 * g.n);
    upload(twiddles, twiddle_table(g.n));

    ProgramVariant variant;
    variant.add(g.inverse, "INVERSE");
    variant.add(g.half_spectrum, "HALF_SPECTRUM");
    variant.add(window != nullptr, "WINDOW");
    variant.add(g.bin_fastest, "BIN_FASTEST");
    const Program& program = context_.programs().get("dft", variant.name, variant.defines,
                                                     std::string(kWideFloatGlsl) + kShader);
    std::vector<DrawInput> inputs = {{"x", &x}, {"twiddles", &twiddles}};
    if (window) inputs.push_back({"window", window});
    // A texel holds two complex bins or four real values, each a loop over the line.
    const int64_t bins_per_texel = g.out_components == 2 ? 2 : 4;
    draw(
        context_, program, y, inputs,
        [&] {
          set_wide_float_uniforms(program);
          program.set("u_size0", static_cast<int>(g.size0));
          program.set("u_size1", static_cast<int>(g.size1));
          program.set("u_in_outer_stride", static_cast<int>(g.in_outer_stride));
          program.set("u_in_inner_stride", static_cast<int>(g.in_inner_stride));
          program.set("u_in_axis_stride", static_cast<int>(g.in_axis_stride));
          program.set("u_in_count", static_cast<int>(g.in_count));
          program.set("u_in_components", static_cast<int>(g.in_components));
          program.set("u_out_components", static_cast<int>(g.out_components));
          program.set("u_n", static_cast<int>(g.n));
        },
        bins_per_texel * g.n + 4);
  }

 private:
  Context& context_;
};

void check_32_bit(int64_t in_elements, int64_t out_elements, int64_t n) {
  if (in_elements > kIndexLimit || out_elements > kIndexLimit || 8 * n > kIndexLimit)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
}

// ---- The adapter -----------------------------------------------------------------------------

RecordFn dft(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_dft_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1, 2});
    const DftSizes s = resolve_dft(NodeInputs{*node.node, inputs}, attrs, INT64_MAX);
    const Shape& shape = r.shape(0);
    check_32_bit(shape.element_count(), s.out_shape.element_count(), s.n);
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t inner = 1;
    for (int64_t d = s.axis + 1; d < rank - 1; ++d) inner *= shape[d];
    const int64_t in_length = shape[s.axis], in_components = shape[rank - 1];
    DftGeometry g;
    g.size0 = std::max<int64_t>(inner, 1);
    g.size1 = std::max<int64_t>(s.out_length, 1);
    g.in_components = in_components;
    g.in_inner_stride = in_components;
    g.in_axis_stride = inner * in_components;
    g.in_outer_stride = in_length * inner * in_components;
    g.in_count = s.half_spectrum ? in_length : std::min(in_length, s.n);
    g.out_components = s.out_components;
    g.n = s.n;
    g.inverse = attrs.inverse;
    g.half_spectrum = s.half_spectrum;
    const TextureTensor& x = r.texture(0);
    r.kernel<Dft>().record(g, x, nullptr, r.output(0, s.out_shape));
  };
}

RecordFn stft(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_stft_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1, 3});
    const StftSizes s = resolve_stft(NodeInputs{*node.node, inputs}, attrs, INT64_MAX);
    check_32_bit(r.shape(0).element_count(), s.out_shape.element_count(), s.frame_length);
    // Lines are (batch, frame); frame f starts at sample f * frame_step.
    DftGeometry g;
    g.bin_fastest = true;
    g.size0 = std::max<int64_t>(s.bins, 1);
    g.size1 = std::max<int64_t>(s.frames, 1);
    g.in_components = s.components;
    g.in_outer_stride = s.signal_length * s.components;
    // Within the signal whenever there is a second frame (the 32-bit check covers it).
    g.in_inner_stride = s.frames > 1 ? s.frame_step * s.components : 0;
    g.in_axis_stride = s.components;
    g.in_count = s.frame_length;
    g.out_components = 2;
    g.n = s.frame_length;
    const TextureTensor& x = r.texture(0);
    const TextureTensor* window = s.has_window ? &r.texture(2) : nullptr;
    r.kernel<Dft>().record(g, x, window, r.output(0, s.out_shape));
  };
}

// Float32 signals (and windows); the scalar inputs are host values (shape-deciding).
OpFactory signal_factory(RecordFn (*make)(const NodeInfo&), bool has_window) {
  return [make, has_window](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 1)) return nullptr;
    if (has_window && !float_inputs(q, reason, 2, 1)) return nullptr;
    return make(q.info);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(dft);
void register_dft_ops(OpTable& t) {
  t.add("DFT", signal_factory(dft, false));
  t.add("STFT", signal_factory(stft, true));
}

}  // namespace kiln::gpu_pixel
