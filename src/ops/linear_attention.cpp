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
#include "opdefs/linear_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"

namespace kiln {
namespace {

namespace la = linear_attention;
using la::Dims;
using la::UpdateRule;
using la::uses_beta;
using la::uses_decay;

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

struct QTag {};
struct KTag {};
struct VTag {};
struct DecayTag {};
struct BetaTag {};
struct StateTag {};
struct OutTag {};
struct DeltaTag {};

void run_linear_attention(OpContext& ctx, const la::Attributes& a) {
  const Dims d = la::check_inputs({ctx.node(), ctx.inputs()}, a);
  const Tensor &q = ctx.input(la::kQuery), &k = ctx.input(la::kKey), &v = ctx.input(la::kValue);
  Operands in{};
  in.q = attn::as_float(q, attn::scratch<float, QTag>(q.element_count()));
  in.k = attn::as_float(k, attn::scratch<float, KTag>(k.element_count()));
  in.v = attn::as_float(v, attn::scratch<float, VTag>(v.element_count()));
  if (uses_decay(a.rule)) {
    const Tensor& decay = ctx.input(la::kDecay);
    in.decay = attn::as_float(decay, attn::scratch<float, DecayTag>(decay.element_count()));
  }
  if (uses_beta(a.rule)) {
    const Tensor& beta = ctx.input(la::kBeta);
    in.beta = attn::as_float(beta, attn::scratch<float, BetaTag>(beta.element_count()));
  }

  const Shape state_shape = d.state_shape();
  const int64_t state_count = state_shape.element_count();
  Tensor* present = ctx.wants_output(1) ? &ctx.allocate_output(1, q.dtype(), state_shape) : nullptr;
  float* state = present ? attn::output_buffer<StateTag>(*present)
                         : attn::scratch<float, StateTag>(state_count);
  if (ctx.has_input(la::kPastState)) {
    attn::copy_to_float(ctx.input(la::kPastState), state);
  } else {
    std::fill(state, state + state_count, 0.0f);
  }
  Tensor& out = ctx.allocate_output(0, q.dtype(), d.output_shape());
  float* out_f = attn::output_buffer<OutTag>(out);
  const float scale = la::output_scale(a, d);
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
  const la::Attributes a = la::parse_attributes(info);
  return [=](OpContext& ctx) { run_linear_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(linear_attention);
void register_linear_attention_ops(OpRegistry& registry) {
  registry.add("LinearAttention", make_linear_attention);
}

}  // namespace kiln
