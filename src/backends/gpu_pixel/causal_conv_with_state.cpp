// CausalConvWithState (opset 27) as draws, for float32, float16 and bfloat16 (held exactly in
// the textures; the outputs are drawn in float32 and rounded once, half_output.h, as the CPU
// computes in float32): the output, then the present state, one draw each. Sizes and attributes
// come from the op's definition (opdefs/causal_conv_with_state.h); the Vulkan version is
// gpu_compute/shaders/causal_conv_with_state.comp.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
// Nothing else uses the kernel, so it has no header.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/causal_conv_with_state.h"

namespace kiln::gpu_pixel {
namespace {

namespace cc = causal_conv;

// ---- The kernel ------------------------------------------------------------------------------

// padded = concat(past_state or zeros, input) per row of [batch * channels]. OUTPUT: element
// (row, t) of the output, act(bias + sum_k weight[k] * padded[t + k]); else element (row, i) of
// the present state, padded[length + i] (the last kernel_size - 1 positions).
constexpr const char* kShader = R"(
uniform highp sampler2D x;  // [rows, length]
uniform int x_width;
uniform highp sampler2D weight;  // [channels, 1, kernel]
uniform int weight_width;
#ifdef HAS_BIAS
uniform highp sampler2D bias;  // [channels]
uniform int bias_width;
#endif
#ifdef HAS_PAST
uniform highp sampler2D past;  // [rows, kernel - 1]
uniform int past_width;
#endif
uniform int u_channels;
uniform int u_length;
uniform int u_kernel;

float padded(int row, int i) {
  int carry = u_kernel - 1;
  if (i >= carry) return fetch_element(x, x_width, row * u_length + i - carry);
#ifdef HAS_PAST
  return fetch_element(past, past_width, row * carry + i);
#else
  return 0.0;
#endif
}

float element(int e) {
#ifdef OUTPUT
  int row = e / u_length, t = e % u_length;
  int c = row % u_channels;
#ifdef HAS_BIAS
  float acc = fetch_element(bias, bias_width, c);
#else
  float acc = 0.0;
#endif
  for (int k = 0; k < u_kernel; ++k)
    acc += fetch_element(weight, weight_width, c * u_kernel + k) * padded(row, t + k);
#ifdef SILU
  acc = acc / (1.0 + exp_(-acc));
#endif
  return acc;
#else
  int carry = u_kernel - 1;
  return padded(e / carry, u_length + e % carry);
#endif
}
)";

struct CausalConvTensors {
  const TextureTensor* input;
  const TextureTensor* weight;
  const TextureTensor* bias;  // null when absent
  const TextureTensor* past;  // null when absent
  TextureTensor* output;
  TextureTensor* present;  // null when not wanted
};

class CausalConv {
 public:
  explicit CausalConv(Context& context) : context_(context) {}

  void record(const cc::Dims& d, bool silu, const CausalConvTensors& t) const {
    draw_one(d, silu, true, t, *t.output);
    if (t.present && d.carry() > 0) draw_one(d, silu, false, t, *t.present);
  }

 private:
  void draw_one(const cc::Dims& d, bool silu, bool output, const CausalConvTensors& t,
                TextureTensor& out) const {
    std::string defines, variant;
    auto define = [&](bool on, const char* name) {
      variant += on ? '1' : '0';
      if (on) defines += std::string("#define ") + name + "\n";
    };
    define(output, "OUTPUT");
    define(t.bias != nullptr, "HAS_BIAS");
    define(t.past != nullptr, "HAS_PAST");
    define(silu, "SILU");
    const Program& program =
        context_.programs().get("causal_conv_with_state", variant, defines,
                                std::string(shader_math_glsl()) + kShader + kElementMain);
    DrawInput inputs[4] = {{"x", t.input}, {"weight", t.weight}};
    size_t count = 2;
    if (t.bias) inputs[count++] = {"bias", t.bias};
    if (t.past) inputs[count++] = {"past", t.past};
    draw(
        context_, program, out, std::span(inputs, count),
        [&] {
          program.set("u_channels", static_cast<int>(d.channels));
          program.set("u_length", static_cast<int>(d.length));
          program.set("u_kernel", static_cast<int>(d.kernel));
        },
        output ? 4 * d.kernel : 0);  // the output's four elements a texel each loop over the taps
  }

  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn causal_conv(cc::Attributes attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const cc::Dims d = cc::check_inputs({*node.node, inputs});
    if (d.batch * d.channels * (d.length + d.kernel) > kIndexLimit ||
        d.channels * d.kernel > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensors exceed 32-bit indexing");
    const DataType dtype = r.dtype(cc::kInput);
    Float32Outputs outputs(r);
    const CausalConvTensors t{
        &r.texture(cc::kInput),
        &r.texture(cc::kWeight),
        r.has_input(cc::kBias) ? &r.texture(cc::kBias) : nullptr,
        r.has_input(cc::kPastState) ? &r.texture(cc::kPastState) : nullptr,
        &outputs.output(0, dtype, r.shape(cc::kInput)),
        r.num_outputs() > 1 ? &outputs.output(1, dtype, d.state_shape()) : nullptr};
    r.kernel<CausalConv>().record(d, attrs.silu, t);
    outputs.finish();
  };
}

RecordFn causal_conv_factory(const DevicePlacementQuery& q, std::string& reason) {
  static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16, DataType::BFloat16};
  if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, SIZE_MAX)) {
    reason = std::string(dtype_name(q.input_types[*k])) +
             " tensors stay on the CPU (the draws take float32, float16 and bfloat16)";
    return nullptr;
  }
  cc::Attributes attrs;
  if (!attributes_accepted([&] { attrs = cc::parse_attributes(q.info); }, reason)) return nullptr;
  return causal_conv(attrs, NodeRef(q.info));
}

}  // namespace

KILN_GPU_PIXEL_OPS(causal_conv_with_state);
void register_causal_conv_with_state_ops(OpTable& t) {
  t.add("CausalConvWithState", causal_conv_factory);
}

}  // namespace kiln::gpu_pixel
