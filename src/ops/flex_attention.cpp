// ai.onnx.preview::FlexAttention (version 1): softmax attention over 4-D [batch, heads, seq,
// size] Q, K and V with grouped-query heads and an optional scale (default 1/sqrt(head size)),
// computed by the same kernel as Attention.
//
// Its score_mod and prob_mod attributes are subgraphs applied to the whole [batch, heads, q_len,
// kv_len] score (before the softmax) and probability (after it) tensors. Running them needs
// subgraph execution, which the CPU backend does not offer to kernels yet: nodes that carry them
// are rejected at load time with an error saying so.
#include <cmath>
#include <string>

#include "backends/cpu/attention_kernel.h"
#include "ops/attention_common.h"
#include "ops/op_registry.h"

namespace kiln {
namespace {

struct QTag {};
struct KTag {};
struct VTag {};
struct YTag {};

void run_flex_attention(OpContext& ctx, bool has_scale, float scale) {
  const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
  attn::require_float(ctx, q, "Q");
  if (k.dtype() != q.dtype() || v.dtype() != q.dtype()) {
    ctx.fail("Q, K and V must have the same element type");
  }
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
    ctx.fail("Q, K and V must be 4-D [batch, heads, seq, head_size]");
  }
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  const cpu::AttentionShape shape{qs[0], qs[1], ks[1], qs[2], ks[2], qs[3], vs[3]};
  if (ks[0] != shape.batch || vs[0] != shape.batch || vs[1] != shape.kv_heads ||
      vs[2] != shape.kv_len || ks[3] != shape.head_size) {
    ctx.fail("shapes Q " + qs.to_string() + ", K " + ks.to_string() + ", V " + vs.to_string() +
             " do not agree");
  }
  if (shape.kv_heads == 0 ? shape.q_heads != 0 : shape.q_heads % shape.kv_heads != 0) {
    ctx.fail("Q's head count " + std::to_string(shape.q_heads) + " is not a multiple of K's " +
             std::to_string(shape.kv_heads));
  }
  cpu::AttentionParams params;
  params.scale = has_scale ? scale : 1.0f / std::sqrt(static_cast<float>(shape.head_size));
  auto view = [](const float* p, const Shape& s) {
    return cpu::HeadView{p, s[1] * s[2] * s[3], s[2] * s[3], s[3]};
  };
  const float* qf = attn::as_float(q, attn::scratch<float, QTag>(q.element_count()));
  const float* kf = attn::as_float(k, attn::scratch<float, KTag>(k.element_count()));
  const float* vf = attn::as_float(v, attn::scratch<float, VTag>(v.element_count()));
  const Shape y_shape{shape.batch, shape.q_heads, shape.q_len, shape.v_head_size};
  Tensor& y = ctx.allocate_output(0, q.dtype(), y_shape);
  float* yf = attn::output_buffer<YTag>(y);
  const cpu::HeadView yv = view(yf, y_shape);
  cpu::attention_f32(shape, params, view(qf, qs), view(kf, ks), view(vf, vs), cpu::MaskView{},
                     cpu::MutableHeadView{yf, yv.batch, yv.head, yv.row});
  attn::finish_output(yf, y);
}

CpuKernel make_flex_attention(const NodeInfo& info) {
  for (const char* mod : {"score_mod", "prob_mod"}) {
    if (info.has_attr(mod)) {
      info.fail(std::string(mod) +
                " needs subgraph execution, which the CPU backend does not support yet");
    }
  }
  const bool has_scale = info.has_attr("scale");
  const float scale = info.attr_float("scale", 1.0f);
  return [=](OpContext& ctx) { run_flex_attention(ctx, has_scale, scale); };
}

}  // namespace

void register_flex_attention_ops(OpRegistry& registry) {
  registry.add("ai.onnx.preview", "FlexAttention", make_flex_attention);
}

}  // namespace kiln
