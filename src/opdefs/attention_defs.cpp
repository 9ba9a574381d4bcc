// The attention family's definitions: Attention's attributes, geometry and shape rule, and the
// shape rules of the other sequence-model ops (LinearAttention, FlexAttention,
// CausalConvWithState, RotaryEmbedding, TensorScatter).
#include "opdefs/attention.h"
#include "opdefs/rotary.h"

#include <optional>
#include <string>

#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/broadcast.h"
#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

namespace kiln {

namespace {

void check_past(const ir::Node& node, const AttentionGeometry& g, const Shape& s, int64_t size,
                const std::string& name) {
  if (s.size() != 4 || s[0] != g.batch || s[1] != g.kv_heads || s[3] != size) {
    fail_at(node, name + " must have shape [" + std::to_string(g.batch) + ", " +
                      std::to_string(g.kv_heads) + ", past_len, " + std::to_string(size) +
                      "], got " + s.to_string());
  }
}

}  // namespace

AttentionAttrs parse_attention_attrs(const NodeInfo& info) {
  AttentionAttrs a;
  a.q_num_heads = info.attr_int("q_num_heads", 0);
  a.kv_num_heads = info.attr_int("kv_num_heads", 0);
  a.is_causal = info.attr_int("is_causal", 0) != 0;
  const int64_t mode = info.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    info.fail("qk_matmul_output_mode must be 0, 1, 2 or 3, got " + std::to_string(mode));
  }
  a.qk_output_mode = static_cast<int>(mode);
  a.has_scale = info.has_attr("scale");
  a.scale = info.attr_float("scale", 1.0f);
  a.softcap = info.attr_float("softcap", 0.0f);
  if (a.softcap < 0.0f) info.fail("softcap must not be negative");
  return a;
}

AttentionGeometry resolve_attention(const ir::Node& node, const AttentionAttrs& a, const Shape& qs,
                                    const Shape& ks, const Shape& vs, const Shape* past_key,
                                    const Shape* past_value) {
  AttentionGeometry g;
  const size_t rank = qs.size();
  if ((rank != 3 && rank != 4) || ks.size() != rank || vs.size() != rank) {
    fail_at(node, "Q, K and V must all be 3-D or all 4-D, got ranks " + std::to_string(qs.size()) +
                      ", " + std::to_string(ks.size()) + " and " + std::to_string(vs.size()));
  }
  g.batch = qs[0];
  if (rank == 3) {
    g.packed = true;
    g.q_heads = a.q_num_heads;
    g.kv_heads = a.kv_num_heads;
    if (g.q_heads <= 0 || g.kv_heads <= 0) {
      fail_at(node, "3-D inputs need positive q_num_heads and kv_num_heads attributes");
    }
    if (qs[2] % g.q_heads != 0 || ks[2] % g.kv_heads != 0 || vs[2] % g.kv_heads != 0) {
      fail_at(node, "hidden sizes Q " + std::to_string(qs[2]) + ", K " + std::to_string(ks[2]) +
                        ", V " + std::to_string(vs[2]) + " are not divisible by the head counts");
    }
    g.q_len = qs[1];
    g.new_kv_len = ks[1];
    g.head_size = qs[2] / g.q_heads;
    g.v_head_size = vs[2] / g.kv_heads;
    if (ks[2] / g.kv_heads != g.head_size) {
      fail_at(node, "K's head size " + std::to_string(ks[2] / g.kv_heads) + " differs from Q's " +
                        std::to_string(g.head_size));
    }
  } else {
    g.q_heads = qs[1];
    g.kv_heads = ks[1];
    g.q_len = qs[2];
    g.new_kv_len = ks[2];
    g.head_size = qs[3];
    g.v_head_size = vs[3];
    if (ks[3] != g.head_size) {
      fail_at(node, "K's head size " + std::to_string(ks[3]) + " differs from Q's " +
                        std::to_string(g.head_size));
    }
    if (vs[1] != g.kv_heads) fail_at(node, "K and V have different head counts");
  }
  if (ks[0] != g.batch || vs[0] != g.batch) fail_at(node, "Q, K and V have different batch sizes");
  if (vs[rank == 3 ? 1 : 2] != g.new_kv_len)
    fail_at(node, "K and V have different sequence lengths");
  if (g.kv_heads == 0 ? g.q_heads != 0 : g.q_heads % g.kv_heads != 0) {
    fail_at(node, "q_num_heads " + std::to_string(g.q_heads) +
                      " is not a multiple of kv_num_heads " + std::to_string(g.kv_heads));
  }
  if (past_key || past_value) {
    if (!past_key || !past_value) fail_at(node, "past_key and past_value must be given together");
    check_past(node, g, *past_key, g.head_size, "past_key");
    check_past(node, g, *past_value, g.v_head_size, "past_value");
    if ((*past_key)[2] != (*past_value)[2]) {
      fail_at(node, "past_key and past_value have different sequence lengths");
    }
    g.past_len = (*past_key)[2];
  }
  return g;
}

AttentionMaskLayout resolve_attention_mask(const ir::Node& node, const AttentionGeometry& g,
                                           const Shape& s) {
  if (s.size() < 1 || s.size() > 4) {
    fail_at(node, "attn_mask must have rank 1 to 4, got shape " + s.to_string());
  }
  const int64_t total = g.total();
  const Shape target{g.batch, g.q_heads, g.q_len, total};
  const size_t offset = 4 - s.size();
  for (size_t d = 0; d + 1 < s.size(); ++d) {
    if (s[d] != 1 && s[d] != target[offset + d]) {
      fail_at(node, "attn_mask of shape " + s.to_string() + " does not broadcast to " +
                        target.to_string());
    }
  }
  if (s.back() > total) {
    fail_at(node, "attn_mask has " + std::to_string(s.back()) + " columns, more than the " +
                      std::to_string(total) + " keys");
  }
  Shape full;
  for (size_t d = 0; d < offset; ++d) full.push_back(1);
  for (int64_t dim : s) full.push_back(dim);
  const Shape strides = strides_of(full);
  auto stride = [&](size_t d) { return full[d] == 1 ? 0 : strides[d]; };
  return {stride(0), stride(1), stride(2), full[3]};
}

RotaryAttrs parse_rotary_attrs(const NodeInfo& info) {
  RotaryAttrs a;
  a.interleaved = info.attr_int("interleaved", 0) != 0;
  a.num_heads = info.attr_int("num_heads", 0);
  a.rotary_dim = info.attr_int("rotary_embedding_dim", 0);
  if (a.num_heads < 0) info.fail("num_heads must not be negative");
  if (a.rotary_dim < 0) info.fail("rotary_embedding_dim must not be negative");
  return a;
}

void set_rotary_dim(const ir::Node& node, const RotaryAttrs& a, RotaryGeometry& g) {
  g.rotary_dim = a.rotary_dim == 0 ? g.head_size : a.rotary_dim;
  if (g.rotary_dim % 2 != 0 || g.rotary_dim > g.head_size) {
    fail_at(node, "rotary_embedding_dim " + std::to_string(g.rotary_dim) +
                      " must be even and at most the head size " + std::to_string(g.head_size));
  }
}

RotaryGeometry resolve_rotary(const ir::Node& node, const RotaryAttrs& a, const Shape& s) {
  RotaryGeometry g;
  if (s.size() == 4) {
    g = {false, s[0], s[1], s[2], s[3], 0};
  } else if (s.size() == 3) {
    if (a.num_heads <= 0) fail_at(node, "a 3-D input needs a positive num_heads attribute");
    if (s[2] % a.num_heads != 0) {
      fail_at(node, "hidden size " + std::to_string(s[2]) + " is not divisible by num_heads " +
                        std::to_string(a.num_heads));
    }
    g = {true, s[0], a.num_heads, s[1], s[2] / a.num_heads, 0};
  } else {
    fail_at(node, "input must be 3-D or 4-D, got shape " + s.to_string());
  }
  set_rotary_dim(node, a, g);
  return g;
}

void check_rotary_caches(const ir::Node& node, const RotaryGeometry& g, const Shape& cs,
                         const Shape& sin_cache, const Shape* position_ids) {
  const int64_t half = g.rotary_dim / 2;
  if (sin_cache != cs) fail_at(node, "cos_cache and sin_cache have different shapes");
  if (position_ids) {
    if (cs.size() != 2 || cs[1] < half) {
      fail_at(node, "with position_ids the caches must be [max_position, >= " +
                        std::to_string(half) + "], got " + cs.to_string());
    }
    if (*position_ids != Shape{g.batch, g.seq}) {
      fail_at(node, "position_ids must be an int64 tensor of shape [" + std::to_string(g.batch) +
                        ", " + std::to_string(g.seq) + "], got " + position_ids->to_string());
    }
  } else if (cs.size() != 3 || cs[0] != g.batch || cs[1] != g.seq || cs[2] < half) {
    fail_at(node, "without position_ids the caches must be [" + std::to_string(g.batch) + ", " +
                      std::to_string(g.seq) + ", >= " + std::to_string(half) + "], got " +
                      cs.to_string());
  }
}

namespace {

// The input's shape when every dim is fixed.
std::optional<Shape> fixed_shape(const InferenceContext& ctx, size_t i) {
  const std::vector<Dim>* dims = ctx.shape(i);
  if (!dims) return std::nullopt;
  Shape s;
  for (const Dim& d : *dims) {
    if (!d.is_fixed()) return std::nullopt;
    s.push_back(d.value);
  }
  return s;
}

ValueInfo typed(DataType dtype, const Shape& s) {
  std::vector<Dim> dims;
  for (int64_t d : s) dims.push_back(fixed_dim(d));
  return tensor_type(dtype, dims);
}

// Y, present_key, present_value and the scores, from the geometry, where every operand's shape
// is fixed at load time.
std::vector<ValueInfo> attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  const AttentionAttrs a = parse_attention_attrs(ctx.info());
  auto given = [&](size_t i) { return i < ctx.num_inputs() && !ctx.node().inputs[i].empty(); };
  const std::optional<Shape> qs = fixed_shape(ctx, 0), ks = fixed_shape(ctx, 1),
                             vs = fixed_shape(ctx, 2);
  const std::optional<Shape> past_key = given(4) ? fixed_shape(ctx, 4) : std::nullopt;
  const std::optional<Shape> past_value = given(5) ? fixed_shape(ctx, 5) : std::nullopt;
  const ValueInfo* k = ctx.input(1);
  const ValueInfo* v = ctx.input(2);
  if (!k || !v || !qs || !ks || !vs || (given(4) && !past_key) || (given(5) && !past_value)) {
    return {dtype_only(q->dtype)};
  }
  const AttentionGeometry g =
      resolve_attention(ctx.node(), a, *qs, *ks, *vs, past_key ? &*past_key : nullptr,
                        past_value ? &*past_value : nullptr);
  return {typed(q->dtype, g.y_shape()), typed(k->dtype, g.present_shape(g.head_size)),
          typed(v->dtype, g.present_shape(g.v_head_size)), typed(q->dtype, g.scores_shape())};
}

// Dim `d` of input `i`, unknown when its rank is not known (or too small).
Dim dim_of(const InferenceContext& ctx, size_t i, size_t d) {
  const std::vector<Dim>* s = ctx.shape(i);
  return s && d < s->size() ? (*s)[d] : Dim{};
}

// `d` / `by`, when `d` is fixed and divisible.
Dim divided(const Dim& d, int64_t by) {
  return d.is_fixed() && by > 0 && d.value % by == 0 ? fixed_dim(d.value / by) : Dim{};
}

// `d` * `by`, when `d` is fixed.
Dim times(const Dim& d, int64_t by) { return d.is_fixed() ? fixed_dim(d.value * by) : Dim{}; }

// LinearAttention(query [B, S, Hq * dk], key [B, S, Hkv * dk], value [B, S, Hkv * dv], ...):
// output [B, S, Hq * dv] and present_state [B, Hkv, dk, dv], of the query's type.
std::vector<ValueInfo> linear_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  const int64_t q_heads = ctx.info().required_int("q_num_heads");
  const int64_t kv_heads = ctx.info().required_int("kv_num_heads");
  if (q_heads <= 0 || kv_heads <= 0 || q_heads % kv_heads != 0) return {};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<Dim>* s = ctx.shape(i);
    if (s && s->size() != 3) return {dtype_only(q->dtype), dtype_only(q->dtype)};
  }
  const Dim batch = dim_of(ctx, 0, 0), seq = dim_of(ctx, 0, 1);
  const Dim key_size = divided(dim_of(ctx, 0, 2), q_heads);
  const Dim value_size = divided(dim_of(ctx, 2, 2), kv_heads);
  return {tensor_type(q->dtype, {batch, seq, times(value_size, q_heads)}),
          tensor_type(q->dtype, {batch, fixed_dim(kv_heads), key_size, value_size})};
}

// FlexAttention(Q [B, Hq, Sq, dk], K [B, Hkv, Skv, dk], V [B, Hkv, Skv, dv]): [B, Hq, Sq, dv].
std::vector<ValueInfo> flex_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<Dim>* s = ctx.shape(i);
    if (s && s->size() != 4) return {dtype_only(q->dtype)};
  }
  return {tensor_type(
      q->dtype, {dim_of(ctx, 0, 0), dim_of(ctx, 0, 1), dim_of(ctx, 0, 2), dim_of(ctx, 2, 3)})};
}

// CausalConvWithState(input [B, C, L], weight [C, 1, K], bias, past_state): output of the
// input's shape, present_state [B, C, K - 1].
std::vector<ValueInfo> causal_conv_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() != 3) return {dtype_only(x->dtype), dtype_only(x->dtype)};
  const Dim kernel = dim_of(ctx, 1, 2);
  const Dim carry = kernel.is_fixed() && kernel.value >= 1 ? fixed_dim(kernel.value - 1) : Dim{};
  return {tensor_type(x->dtype, *xs), tensor_type(x->dtype, {(*xs)[0], (*xs)[1], carry})};
}

}  // namespace

KILN_OP_DEFS(attention);
void define_attention_ops(OpDefs& defs) {
  defs.define("Attention").infer = attention_rule;
  defs.define("RotaryEmbedding").infer = same_as_input0;
  defs.define(ir::kMicrosoftDomain, "RotaryEmbedding").infer = same_as_input0;
  defs.define("TensorScatter").infer = same_as_input0;  // the updated cache
  defs.define("LinearAttention").infer = linear_attention_rule;
  defs.define("ai.onnx.preview", "FlexAttention").infer = flex_attention_rule;
  defs.define("CausalConvWithState").infer = causal_conv_rule;
}

}  // namespace kiln
