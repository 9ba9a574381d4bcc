// LinearAttention (opset 27) as draws, for float32, float16 and bfloat16 (held exactly in the
// textures; the outputs are drawn in float32 and rounded once, half_output.h, as the CPU computes
// in float32): every update rule, grouped-query heads, per-feature or per-head decay, per-head or
// shared beta, past and present state. Sizes and attributes come from the op's definition
// (opdefs/linear_attention.h); the Vulkan version is gpu_compute/shaders/linear_attention.comp,
// the update rules are the CPU kernel's (ops/linear_attention.cpp):
//
//   S[:, j] *= exp(decay)                                   (gated rules)
//   delta_j = beta * (v_j - sum_i S[i, j] k_i)  or  v_j     (delta rules, others)
//   S[:, j] += k delta_j;   output_j = scale * sum_i q_i S[i, j]
//
// The recurrence ping-pongs one texture, [output | S] with the output [batch, seq, q_heads *
// value_size] and S [batch, kv_heads, key_size, value_size]: each token is one draw that writes
// the new S and this token's output rows, and copies the other rows from the previous texture (a
// draw cannot read the texture it writes). Region copies take the outputs out of the last one.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
// Nothing else uses the kernel, so it has no header.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/region_copy.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/linear_attention.h"

namespace kiln::gpu_pixel {
namespace {

namespace la = linear_attention;

// ---- The kernel ------------------------------------------------------------------------------

// One token (u_step) of every (batch, kv head). At the first token `state` is not read (S comes
// from past_state or zeros, the output rows are zero), so any texture may stand in for it.
constexpr const char* kShader = R"(
uniform highp sampler2D state;  // [output | S]
uniform int state_width;
uniform highp sampler2D q;  // [batch, seq, q_heads * key_size]
uniform int q_width;
uniform highp sampler2D k;  // [batch, seq, kv_heads * key_size]
uniform int k_width;
uniform highp sampler2D v;  // [batch, seq, kv_heads * value_size]
uniform int v_width;
#ifdef HAS_PAST
uniform highp sampler2D past;  // [batch, kv_heads, key_size, value_size]
uniform int past_width;
#endif
#ifdef HAS_DECAY
uniform highp sampler2D decay;  // [batch, seq, kv_heads * decay_width]
uniform int decay_width;
uniform int u_decay_width;  // key_size or 1
#endif
#ifdef HAS_BETA
uniform highp sampler2D beta;  // [batch, seq, beta_heads]
uniform int beta_width;
uniform int u_beta_heads;  // kv_heads or 1
#endif
uniform int u_seq;
uniform int u_q_heads;
uniform int u_kv_heads;
uniform int u_dk;
uniform int u_dv;
uniform int u_step;
uniform int u_output_count;
uniform float u_scale;

// S[i, j] of (batch b, kv head h) before this token, decayed by it.
float decayed(int b, int h, int i, int j) {
  int s = ((b * u_kv_heads + h) * u_dk + i) * u_dv + j;
  float value = 0.0;
  if (u_step > 0) {
    value = fetch_element(state, state_width, u_output_count + s);
  } else {
#ifdef HAS_PAST
    value = fetch_element(past, past_width, s);
#endif
  }
#ifdef HAS_DECAY
  int token = b * u_seq + u_step;
  int g = (token * u_kv_heads + h) * u_decay_width + (u_decay_width == 1 ? 0 : i);
  value *= exp_(fetch_element(decay, decay_width, g));
#endif
  return value;
}

float key(int b, int h, int i) {
  return fetch_element(k, k_width, ((b * u_seq + u_step) * u_kv_heads + h) * u_dk + i);
}

// What column j of S gains per unit of k this token.
float delta(int b, int h, int j) {
  int token = b * u_seq + u_step;
  float d = fetch_element(v, v_width, (token * u_kv_heads + h) * u_dv + j);
#ifdef HAS_BETA
  for (int i = 0; i < u_dk; ++i) d -= decayed(b, h, i, j) * key(b, h, i);
  d *= fetch_element(beta, beta_width, token * u_beta_heads + (u_beta_heads == 1 ? 0 : h));
#endif
  return d;
}

float element(int e) {
  int j = e % u_dv;
  if (e < u_output_count) {
    int token = e / (u_q_heads * u_dv);
    if (token % u_seq != u_step) return u_step > 0 ? fetch_element(state, state_width, e) : 0.0;
    int b = token / u_seq;
    int qh = (e / u_dv) % u_q_heads;
    int h = qh / (u_q_heads / u_kv_heads);
    float dj = delta(b, h, j);
    float acc = 0.0;
    for (int i = 0; i < u_dk; ++i) {
      acc += fetch_element(q, q_width, (token * u_q_heads + qh) * u_dk + i) *
             (decayed(b, h, i, j) + key(b, h, i) * dj);
    }
    return acc * u_scale;
  }
  int s = e - u_output_count;
  int i = (s / u_dv) % u_dk;
  int item = s / (u_dv * u_dk);
  int h = item % u_kv_heads, b = item / u_kv_heads;
  return decayed(b, h, i, j) + key(b, h, i) * delta(b, h, j);
}
)";

struct LinearAttentionTensors {
  const TextureTensor *q, *k, *v;
  const TextureTensor *past, *decay, *beta;  // null when absent
  TextureTensor* output;
  TextureTensor* present;  // null when not wanted
};

class LinearAttentionDraws {
 public:
  explicit LinearAttentionDraws(Context& context) : context_(context) {}

  void record(const la::Dims& d, float scale, const LinearAttentionTensors& t) const {
    const int64_t output_count = d.output_shape().element_count();
    const int64_t total = output_count + d.state_shape().element_count();
    check(total <= kIndexLimit, "LinearAttention on OpenGL ES: sizes exceed 32-bit indexing");
    std::string defines, variant;
    auto define = [&](bool on, const char* name) {
      variant += on ? '1' : '0';
      if (on) defines += std::string("#define ") + name + "\n";
    };
    define(t.past != nullptr, "HAS_PAST");
    define(d.decay_width != 0, "HAS_DECAY");
    define(d.beta_heads != 0, "HAS_BETA");
    const Program& program =
        context_.programs().get("linear_attention", variant, defines,
                                std::string(shader_math_glsl()) + kShader + kElementMain);
    // An output element loops over the key features twice (delta, then q.S); a texel holds four.
    const int64_t loop_steps = 4 * 2 * d.key_size;
    TextureTensor state(context_, total), next(context_, total);
    for (int64_t step = 0; step < d.seq; ++step) {
      DrawInput inputs[7] = {
          {"state", step > 0 ? &state : t.q}, {"q", t.q}, {"k", t.k}, {"v", t.v}};
      size_t count = 4;
      if (t.past) inputs[count++] = {"past", t.past};
      if (d.decay_width != 0) inputs[count++] = {"decay", t.decay};
      if (d.beta_heads != 0) inputs[count++] = {"beta", t.beta};
      draw(
          context_, program, next, std::span(inputs, count),
          [&] {
            program.set("u_seq", static_cast<int>(d.seq));
            program.set("u_q_heads", static_cast<int>(d.q_heads));
            program.set("u_kv_heads", static_cast<int>(d.kv_heads));
            program.set("u_dk", static_cast<int>(d.key_size));
            program.set("u_dv", static_cast<int>(d.value_size));
            program.set("u_decay_width", static_cast<int>(d.decay_width));
            program.set("u_beta_heads", static_cast<int>(d.beta_heads));
            program.set("u_step", static_cast<int>(step));
            program.set("u_output_count", static_cast<int>(output_count));
            program.set("u_scale", scale);
          },
          loop_steps);
      std::swap(state, next);
    }
    RegionCopy(context_).record(Region{{output_count}, 0, {1}}, state, *t.output);
    if (t.present) {
      const Region region{{t.present->element_count()}, output_count, {1}};
      RegionCopy(context_).record(region, state, *t.present);
    }
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn linear_attention(la::Attributes attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const la::Dims d = la::check_inputs({*node.node, inputs}, attrs);
    if (d.batch == 0 || d.seq == 0 || d.q_heads == 0 || d.key_size == 0 || d.value_size == 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "LinearAttention with an empty dimension runs on the CPU");
    const int64_t biggest =
        std::max({r.shape(la::kQuery).element_count(), r.shape(la::kValue).element_count(),
                  d.output_shape().element_count() + d.state_shape().element_count()});
    if (biggest > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensors exceed 32-bit indexing");
    const DataType dtype = r.dtype(la::kQuery);
    Float32Outputs outputs(r);
    const LinearAttentionTensors t{
        &r.texture(la::kQuery),
        &r.texture(la::kKey),
        &r.texture(la::kValue),
        r.has_input(la::kPastState) ? &r.texture(la::kPastState) : nullptr,
        la::uses_decay(attrs.rule) ? &r.texture(la::kDecay) : nullptr,
        la::uses_beta(attrs.rule) ? &r.texture(la::kBeta) : nullptr,
        &outputs.output(0, dtype, d.output_shape()),
        r.num_outputs() > 1 ? &outputs.output(1, dtype, d.state_shape()) : nullptr};
    r.kernel<LinearAttentionDraws>().record(d, la::output_scale(attrs, d), t);
    outputs.finish();
  };
}

RecordFn linear_attention_factory(const DevicePlacementQuery& q, std::string& reason) {
  static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16, DataType::BFloat16};
  if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, SIZE_MAX)) {
    reason = std::string(dtype_name(q.input_types[*k])) +
             " tensors stay on the CPU (the draws take float32, float16 and bfloat16)";
    return nullptr;
  }
  la::Attributes attrs;
  if (!attributes_accepted([&] { attrs = la::parse_attributes(q.info); }, reason)) return nullptr;
  return linear_attention(attrs, NodeRef(q.info));
}

}  // namespace

KILN_GPU_PIXEL_OPS(linear_attention);
void register_linear_attention_ops(OpTable& t) {
  t.add("LinearAttention", linear_attention_factory);
}

}  // namespace kiln::gpu_pixel
