// LinearAttention (opset 27): attention through a recurrent state instead of a softmax over
// every key. Per batch and kv head, a [key_size, value_size] state S is updated token by token
// and read by each query head of the group (grouped-query heads as in Attention):
//
//   linear:       S = S + k v^T
//   gated:        S = exp(decay) * S + k v^T            (decay scales S's rows)
//   delta:        S = S + k (beta * (v - S^T k))^T
//   gated_delta:  S' = exp(decay) * S;  S = S' + k (beta * (v - S'^T k))^T   (the default)
//   output_t = scale * S^T q_t   (after the update; scale defaults to 1/sqrt(key_size))
//
// Inputs are 3-D [batch, seq, heads * size]; decay is per key feature [.., kv_heads * key_size]
// or per head [.., kv_heads]; beta per head [.., kv_heads] or shared [.., 1]. past_state and
// present_state are [batch, kv_heads, key_size, value_size].
#include <cmath>
#include <string>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"

namespace kiln {
namespace {

enum class UpdateRule { kLinear, kGated, kDelta, kGatedDelta };

struct LinearAttentionAttrs {
  int64_t q_heads = 0, kv_heads = 0;
  UpdateRule rule = UpdateRule::kGatedDelta;
  bool has_scale = false;
  float scale = 1.0f;
};

bool uses_decay(UpdateRule r) { return r == UpdateRule::kGated || r == UpdateRule::kGatedDelta; }
bool uses_beta(UpdateRule r) { return r == UpdateRule::kDelta || r == UpdateRule::kGatedDelta; }

struct Dims {
  int64_t batch = 0, seq = 0, q_heads = 0, kv_heads = 0, key_size = 0, value_size = 0;
  int64_t decay_width = 0;  // per kv head: key_size or 1
  int64_t beta_heads = 0;   // kv_heads or 1
};

// Float32 operands, each [batch, seq, width] row-major (decay and beta may be null).
struct Operands {
  const float *q, *k, *v, *decay, *beta;
};

// Runs the recurrence for one (batch, kv head) pair; `state` holds its [key_size, value_size]
// state on entry (past or zero) and on exit (present).
void run_head(const Dims& d, UpdateRule rule, float scale, const Operands& in, int64_t b, int64_t h,
              float* state, float* out, float* delta) {
  const int64_t dk = d.key_size, dv = d.value_size, group = d.q_heads / d.kv_heads;
  for (int64_t t = 0; t < d.seq; ++t) {
    const int64_t token = b * d.seq + t;
    const float* k = in.k + token * d.kv_heads * dk + h * dk;
    const float* v = in.v + token * d.kv_heads * dv + h * dv;
    if (uses_decay(rule)) {
      const float* decay = in.decay + token * d.kv_heads * d.decay_width + h * d.decay_width;
      for (int64_t i = 0; i < dk; ++i) {
        const float g = std::exp(decay[d.decay_width == 1 ? 0 : i]);
        for (int64_t j = 0; j < dv; ++j) state[i * dv + j] *= g;
      }
    }
    if (uses_beta(rule)) {
      // The delta rule writes only what the state does not already recall for k.
      const float beta = in.beta[token * d.beta_heads + (d.beta_heads == 1 ? 0 : h)];
      for (int64_t j = 0; j < dv; ++j) delta[j] = v[j];
      for (int64_t i = 0; i < dk; ++i) {
        for (int64_t j = 0; j < dv; ++j) delta[j] -= state[i * dv + j] * k[i];
      }
      for (int64_t j = 0; j < dv; ++j) delta[j] *= beta;
    } else {
      for (int64_t j = 0; j < dv; ++j) delta[j] = v[j];
    }
    for (int64_t i = 0; i < dk; ++i) {
      for (int64_t j = 0; j < dv; ++j) state[i * dv + j] += k[i] * delta[j];
    }
    for (int64_t qh = h * group; qh < (h + 1) * group; ++qh) {
      const float* q = in.q + token * d.q_heads * dk + qh * dk;
      float* o = out + token * d.q_heads * dv + qh * dv;
      for (int64_t j = 0; j < dv; ++j) o[j] = 0.0f;
      for (int64_t i = 0; i < dk; ++i) {
        for (int64_t j = 0; j < dv; ++j) o[j] += q[i] * state[i * dv + j];
      }
      for (int64_t j = 0; j < dv; ++j) o[j] *= scale;
    }
  }
}

Dims dims_of(const OpContext& ctx, const LinearAttentionAttrs& a, const Tensor& q, const Tensor& k,
             const Tensor& v) {
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3) {
    ctx.fail("query, key and value must be 3-D [batch, seq, heads * size]");
  }
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  Dims d{qs[0], qs[1], a.q_heads, a.kv_heads, 0, 0, 0, 0};
  if (ks[0] != d.batch || vs[0] != d.batch || ks[1] != d.seq || vs[1] != d.seq) {
    ctx.fail("query, key and value must agree on batch and sequence length");
  }
  if (qs[2] % d.q_heads != 0 || ks[2] % d.kv_heads != 0 || vs[2] % d.kv_heads != 0) {
    ctx.fail("hidden sizes are not divisible by q_num_heads and kv_num_heads");
  }
  d.key_size = qs[2] / d.q_heads;
  d.value_size = vs[2] / d.kv_heads;
  if (ks[2] / d.kv_heads != d.key_size) ctx.fail("query and key have different head sizes");
  return d;
}

struct QTag {};
struct KTag {};
struct VTag {};
struct DecayTag {};
struct BetaTag {};
struct StateTag {};
struct OutTag {};
struct DeltaTag {};

void run_linear_attention(OpContext& ctx, const LinearAttentionAttrs& a) {
  const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
  attn::require_float(ctx, q, "query");
  attn::require_float(ctx, k, "key");
  attn::require_float(ctx, v, "value");
  Dims d = dims_of(ctx, a, q, k, v);
  Operands in{};
  in.q = attn::as_float(q, attn::scratch<float, QTag>(q.element_count()));
  in.k = attn::as_float(k, attn::scratch<float, KTag>(k.element_count()));
  in.v = attn::as_float(v, attn::scratch<float, VTag>(v.element_count()));
  if (uses_decay(a.rule)) {
    if (!ctx.has_input(4)) ctx.fail("this update_rule needs the decay input");
    const Tensor& decay = ctx.input(4);
    attn::require_float(ctx, decay, "decay");
    const Shape& s = decay.shape();
    if (s.size() != 3 || s[0] != d.batch || s[1] != d.seq ||
        (s[2] != d.kv_heads * d.key_size && s[2] != d.kv_heads)) {
      ctx.fail(
          "decay must be [batch, seq, kv_num_heads * head_size] or [batch, seq, "
          "kv_num_heads], got " +
          s.to_string());
    }
    d.decay_width = s[2] / d.kv_heads;
    in.decay = attn::as_float(decay, attn::scratch<float, DecayTag>(decay.element_count()));
  }
  if (uses_beta(a.rule)) {
    if (!ctx.has_input(5)) ctx.fail("this update_rule needs the beta input");
    const Tensor& beta = ctx.input(5);
    attn::require_float(ctx, beta, "beta");
    const Shape& s = beta.shape();
    if (s.size() != 3 || s[0] != d.batch || s[1] != d.seq || (s[2] != d.kv_heads && s[2] != 1)) {
      ctx.fail("beta must be [batch, seq, kv_num_heads] or [batch, seq, 1], got " + s.to_string());
    }
    d.beta_heads = s[2];
    in.beta = attn::as_float(beta, attn::scratch<float, BetaTag>(beta.element_count()));
  }

  const Shape state_shape{d.batch, d.kv_heads, d.key_size, d.value_size};
  const int64_t state_count = state_shape.element_count();
  Tensor* present = ctx.wants_output(1) ? &ctx.allocate_output(1, q.dtype(), state_shape) : nullptr;
  float* state = present ? attn::output_buffer<StateTag>(*present)
                         : attn::scratch<float, StateTag>(state_count);
  if (ctx.has_input(3)) {
    const Tensor& past = ctx.input(3);
    attn::require_float(ctx, past, "past_state");
    if (past.shape() != state_shape) {
      ctx.fail("past_state must have shape " + state_shape.to_string() + ", got " +
               past.shape().to_string());
    }
    attn::copy_to_float(past, state);
  } else {
    std::fill(state, state + state_count, 0.0f);
  }
  Tensor& out = ctx.allocate_output(0, q.dtype(), {d.batch, d.seq, d.q_heads * d.value_size});
  float* out_f = attn::output_buffer<OutTag>(out);
  const float scale = a.has_scale
                          ? a.scale
                          : 1.0f / std::sqrt(static_cast<float>(std::max<int64_t>(1, d.key_size)));
  const int64_t work = d.seq * d.key_size * d.value_size * (3 + d.q_heads / d.kv_heads);
  parallel_for(d.batch * d.kv_heads, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work)),
               [&](int64_t begin, int64_t end) {
                 float* delta = attn::scratch<float, DeltaTag>(d.value_size);
                 for (int64_t item = begin; item < end; ++item) {
                   run_head(d, a.rule, scale, in, item / d.kv_heads, item % d.kv_heads,
                            state + item * d.key_size * d.value_size, out_f, delta);
                 }
               });
  attn::finish_output(out_f, out);
  if (present) attn::finish_output(state, *present);
}

CpuKernel make_linear_attention(const NodeInfo& info) {
  LinearAttentionAttrs a;
  a.q_heads = info.required_int("q_num_heads");
  a.kv_heads = info.required_int("kv_num_heads");
  if (a.q_heads <= 0 || a.kv_heads <= 0 || a.q_heads % a.kv_heads != 0) {
    info.fail(
        "q_num_heads and kv_num_heads must be positive, q_num_heads a multiple of "
        "kv_num_heads");
  }
  const std::string rule = info.attr_string("update_rule", "gated_delta");
  if (rule == "linear") {
    a.rule = UpdateRule::kLinear;
  } else if (rule == "gated") {
    a.rule = UpdateRule::kGated;
  } else if (rule == "delta") {
    a.rule = UpdateRule::kDelta;
  } else if (rule == "gated_delta") {
    a.rule = UpdateRule::kGatedDelta;
  } else {
    info.fail("update_rule must be linear, gated, delta or gated_delta, got \"" + rule + "\"");
  }
  a.has_scale = info.has_attr("scale");
  a.scale = info.attr_float("scale", 1.0f);
  return [=](OpContext& ctx) { run_linear_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(linear_attention);
void register_linear_attention_ops(OpRegistry& registry) {
  registry.add("LinearAttention", make_linear_attention);
}

}  // namespace kiln
