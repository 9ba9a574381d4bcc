// The com.microsoft attention family's definitions: attribute parsing and the shape rules of
// GroupQueryAttention, MultiHeadAttention, Attention and EmbedLayerNormalization.
#include <string>

#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/ms_attention.h"
#include "opdefs/node_info.h"
#include "opdefs/op_def.h"

namespace kiln {

GroupQueryAttentionAttrs parse_group_query_attention_attrs(const NodeInfo& info) {
  GroupQueryAttentionAttrs a;
  a.num_heads = info.required_int("num_heads");
  a.kv_num_heads = info.required_int("kv_num_heads");
  if (a.num_heads <= 0 || a.kv_num_heads <= 0 || a.num_heads % a.kv_num_heads != 0) {
    info.fail("num_heads " + std::to_string(a.num_heads) +
              " must be a positive multiple of kv_num_heads " + std::to_string(a.kv_num_heads));
  }
  a.scale = info.attr_float("scale", 0.0f);
  a.softcap = info.attr_float("softcap", 0.0f);
  if (a.softcap < 0.0f) info.fail("softcap must not be negative");
  const int64_t causal = info.attr_int("causal", 1);
  if (causal != 0 && causal != 1) info.fail("causal must be 0 or 1");
  a.causal = causal == 1;
  a.local_window_size = info.attr_int("local_window_size", -1);
  if (a.local_window_size == 0 || a.local_window_size < -1) {
    info.fail("local_window_size must be -1 or positive, got " +
              std::to_string(a.local_window_size));
  }
  if (!a.causal && a.local_window_size != -1) {
    info.fail("local_window_size must be -1 when causal is 0");
  }
  a.do_rotary = info.attr_int("do_rotary", 0) != 0;
  a.rotary_interleaved = info.attr_int("rotary_interleaved", 0) != 0;
  // What ONNX Runtime's CPU kernel does not do either, or what kiln has not taken on: refused
  // by name rather than silently ignored.
  if (info.attr_int("smooth_softmax", 0) != 0) info.fail("smooth_softmax=1 is not supported");
  if (info.attr_int("qk_output", 0) != 0) info.fail("qk_output is not supported");
  if (info.attr_int("sliding_window_cache", 0) != 0) {
    info.fail("sliding_window_cache=1 (window-sized caches) is not supported");
  }
  if (info.attr_int("kv_cache_bit_width", 0) != 0 ||
      info.attr_string("k_quant_type", "NONE") != "NONE" ||
      info.attr_string("v_quant_type", "NONE") != "NONE") {
    info.fail("quantized key/value caches are not supported");
  }
  return a;
}

MultiHeadAttentionAttrs parse_multihead_attention_attrs(const NodeInfo& info) {
  MultiHeadAttentionAttrs a;
  a.num_heads = info.required_int("num_heads");
  if (a.num_heads <= 0) info.fail("num_heads must be positive");
  a.scale = info.attr_float("scale", 0.0f);
  a.mask_filter_value = info.attr_float("mask_filter_value", -10000.0f);
  a.unidirectional = info.attr_int("unidirectional", 0) != 0;
  return a;
}

MsAttentionAttrs parse_ms_attention_attrs(const NodeInfo& info) {
  MsAttentionAttrs a;
  a.common = parse_multihead_attention_attrs(info);
  a.qkv_hidden_sizes = info.attr_ints("qkv_hidden_sizes");
  if (!a.qkv_hidden_sizes.empty()) {
    if (a.qkv_hidden_sizes.size() != 3) info.fail("qkv_hidden_sizes must have 3 values");
    for (int64_t v : a.qkv_hidden_sizes) {
      if (v <= 0 || v % a.common.num_heads != 0) {
        info.fail("qkv_hidden_sizes must be positive multiples of num_heads");
      }
    }
    if (a.qkv_hidden_sizes[0] != a.qkv_hidden_sizes[1]) {
      info.fail("qkv_hidden_sizes: Q and K must have the same hidden size");
    }
  }
  if (info.attr_int("do_rotary", 0) != 0) info.fail("do_rotary=1 is not supported");
  if (info.attr_int("past_present_share_buffer", 0) != 0) {
    info.fail("past_present_share_buffer=1 is not supported");
  }
  return a;
}

EmbedLayerNormAttrs parse_embed_layer_norm_attrs(const NodeInfo& info) {
  EmbedLayerNormAttrs a;
  a.epsilon = info.attr_float("epsilon", 1e-12f);
  if (!(a.epsilon >= 0.0f)) info.fail("epsilon must not be negative");
  const int64_t type = info.attr_int("mask_index_type", 1);
  if (type != 0 && type != 1) info.fail("mask_index_type must be 0 or 1");
  a.mask_index = type == 1;
  return a;
}

namespace {

Dim dim_of(const InferenceContext& ctx, size_t i, size_t d) {
  const std::vector<Dim>* s = ctx.shape(i);
  return s && d < s->size() ? (*s)[d] : Dim{};
}

Dim divided(const Dim& d, int64_t by) {
  return d.is_fixed() && by > 0 && d.value % by == 0 ? fixed_dim(d.value / by) : Dim{};
}

Dim plus(const Dim& a, const Dim& b) {
  return a.is_fixed() && b.is_fixed() ? fixed_dim(a.value + b.value) : Dim{};
}

bool given(const InferenceContext& ctx, size_t i) {
  return i < ctx.num_inputs() && !ctx.node().inputs[i].empty();
}

// Output [batch, seq, num_heads * head_size]; present_key/value [batch, kv_heads, ?, head].
std::vector<ValueInfo> group_query_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  const GroupQueryAttentionAttrs a = parse_group_query_attention_attrs(ctx.info());
  const Dim width = dim_of(ctx, 0, 2);
  Dim hidden, head;
  if (width.is_fixed()) {
    const int64_t parts = given(ctx, 1) ? a.num_heads : a.num_heads + 2 * a.kv_num_heads;
    if (width.value % parts == 0) {
      head = fixed_dim(width.value / parts);
      hidden = fixed_dim(width.value / parts * a.num_heads);
    }
  }
  const ValueInfo present =
      tensor_type(q->dtype, {dim_of(ctx, 0, 0), fixed_dim(a.kv_num_heads), Dim{}, head});
  return {tensor_type(q->dtype, {dim_of(ctx, 0, 0), dim_of(ctx, 0, 1), hidden}), present, present};
}

// Output [batch, seq, num_heads * v_head]: packed Q, K and V [batch, seq, heads, 3, head] and
// packed K and V [batch, kv, heads, 2, head] give V's width by query's; value [batch, kv,
// v_hidden] or [batch, heads, kv, v_head] by its own.
std::vector<ValueInfo> multihead_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* q = ctx.input(0);
  if (!q) return {};
  const int64_t heads = parse_multihead_attention_attrs(ctx.info()).num_heads;
  const std::vector<Dim>* qs = ctx.shape(0);
  if (!qs) return {dtype_only(q->dtype)};
  if (qs->size() == 5) {
    const Dim head = (*qs)[4];
    return {tensor_type(
        q->dtype, {(*qs)[0], (*qs)[1], head.is_fixed() ? fixed_dim(head.value * heads) : Dim{}})};
  }
  if (qs->size() != 3) return {dtype_only(q->dtype)};
  Dim width;
  const std::vector<Dim>* ks = given(ctx, 1) ? ctx.shape(1) : nullptr;
  const std::vector<Dim>* vs = given(ctx, 2) ? ctx.shape(2) : nullptr;
  if (ks && ks->size() == 5) width = (*qs)[2];
  if (vs && vs->size() == 3) width = (*vs)[2];
  if (vs && vs->size() == 4 && (*vs)[3].is_fixed()) width = fixed_dim((*vs)[3].value * heads);
  // present_key/present_value [batch, heads, past + kv, head] (keys given in heads are returned
  // as they are).
  const Dim head = divided((*qs)[2], heads), v_head = divided(width, heads);
  Dim total;
  if (ks && ks->size() == 4) {
    total = (*ks)[2];
  } else if (ks && (ks->size() == 3 || ks->size() == 5)) {
    total = given(ctx, 6) ? plus(dim_of(ctx, 6, 2), (*ks)[1]) : (*ks)[1];
  }
  const Dim batch = (*qs)[0], n = fixed_dim(heads);
  return {tensor_type(q->dtype, {batch, (*qs)[1], width}),
          tensor_type(q->dtype, {batch, n, total, head}),
          tensor_type(q->dtype, {batch, n, total, v_head})};
}

// Output [batch, seq, v_hidden] from the weights' width and qkv_hidden_sizes.
std::vector<ValueInfo> ms_attention_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const MsAttentionAttrs a = parse_ms_attention_attrs(ctx.info());
  Dim width;
  if (!a.qkv_hidden_sizes.empty()) {
    width = fixed_dim(a.qkv_hidden_sizes[2]);
  } else {
    const Dim w = dim_of(ctx, 1, 1);
    if (w.is_fixed() && w.value % 3 == 0) width = fixed_dim(w.value / 3);
  }
  // present [2, batch, heads, past + seq, head].
  const Dim head = divided(width, a.common.num_heads), seq = dim_of(ctx, 0, 1);
  const Dim total = given(ctx, 4) ? plus(dim_of(ctx, 4, 3), seq) : seq;
  const Dim batch = dim_of(ctx, 0, 0);
  return {tensor_type(x->dtype, {batch, seq, width}),
          tensor_type(x->dtype, {fixed_dim(2), batch, fixed_dim(a.common.num_heads), total, head})};
}

// output [batch, seq, hidden], mask_index [batch] int32, embedding_sum [batch, seq, hidden].
std::vector<ValueInfo> embed_layer_norm_rule(const InferenceContext& ctx) {
  const ValueInfo* word = ctx.input(2);
  if (!word) return {};
  const Dim batch = dim_of(ctx, 0, 0), seq = dim_of(ctx, 0, 1), hidden = dim_of(ctx, 2, 1);
  const ValueInfo out = tensor_type(word->dtype, {batch, seq, hidden});
  return {out, tensor_type(DataType::Int32, {batch}), out};
}

}  // namespace

KILN_OP_DEFS(ms_attention);
void define_ms_attention_ops(OpDefs& defs) {
  defs.define(ir::kMicrosoftDomain, "GroupQueryAttention").infer = group_query_attention_rule;
  defs.define(ir::kMicrosoftDomain, "MultiHeadAttention").infer = multihead_attention_rule;
  defs.define(ir::kMicrosoftDomain, "Attention").infer = ms_attention_rule;
  defs.define(ir::kMicrosoftDomain, "EmbedLayerNormalization").infer = embed_layer_norm_rule;
}

}  // namespace kiln
