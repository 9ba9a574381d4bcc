// Attention (opset 23, 24): scaled dot-product attention with every mask form, grouped-query
// heads, softcap, a key/value cache (past_key/past_value -> present_key/present_value), the
// optional scores output and, from opset 24, per-batch key padding (nonpad_kv_seqlen).
//
// The numeric core is cpu::attention_f32; this file checks shapes, turns the inputs into
// float32 views (3-D inputs [batch, seq, heads * size] are read in place through strides) and
// builds the caches. Also the family's registration entry point.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "backends/cpu/attention_kernel.h"
#include "core/element_storage.h"
#include "kernels/op_registry.h"
#include "opdefs/attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

using attn::scratch;
using Geometry = AttentionGeometry;

// A [batch, heads, seq, size] view of float data laid out 3-D (packed) or 4-D.
cpu::HeadView view_of(const float* data, bool packed, int64_t heads, int64_t seq, int64_t size) {
  const HeadStrides s = head_strides(packed, heads, seq, size);
  return {data, s.batch, s.head, s.row};
}

// Scratch tags, one set per cache (0: keys, 1: values).
template <int kSlot>
struct PresentTag {};
template <int kSlot>
struct PastTag {};
template <int kSlot>
struct CurrentTag {};

// The keys (or values) the queries attend to, [batch, kv_heads, past + new, size] contiguous:
// `past` followed by `current`, written into output `out_index` when the graph wants it.
// Without a past and without that output, `current` is read in place.
template <int kSlot>
cpu::HeadView present(OpContext& ctx, const Geometry& g, const Tensor* past, const Tensor& current,
                      int64_t size, size_t out_index) {
  const int64_t total = g.past_len + g.new_kv_len;
  const float* cur =
      attn::as_float(current, scratch<float, CurrentTag<kSlot>>(current.element_count()));
  const cpu::HeadView cur_view = view_of(cur, g.packed, g.kv_heads, g.new_kv_len, size);
  const bool wanted = ctx.wants_output(out_index);
  if (past == nullptr && !wanted) return cur_view;

  Tensor* out = nullptr;
  if (wanted) out = &ctx.allocate_output(out_index, current.dtype(), g.present_shape(size));
  const int64_t count = g.batch * g.kv_heads * total * size;
  float* dest = (out != nullptr && out->dtype() == DataType::Float32)
                    ? out->mutable_data<float>()
                    : scratch<float, PresentTag<kSlot>>(count);
  const float* past_data =
      past ? attn::as_float(*past, scratch<float, PastTag<kSlot>>(past->element_count())) : nullptr;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t h = 0; h < g.kv_heads; ++h) {
      float* d = dest + (b * g.kv_heads + h) * total * size;
      if (past_data) {
        const float* p = past_data + (b * g.kv_heads + h) * g.past_len * size;
        std::copy(p, p + g.past_len * size, d);
        d += g.past_len * size;
      }
      const float* c = cur_view.data + b * cur_view.batch + h * cur_view.head;
      for (int64_t s = 0; s < g.new_kv_len; ++s) {
        std::copy(c + s * cur_view.row, c + s * cur_view.row + size, d + s * size);
      }
    }
  }
  if (out != nullptr) attn::finish_output(dest, *out);
  return {dest, g.kv_heads * total * size, total * size, size};
}

struct MaskTag {};

// The attention mask as a float view broadcast to [batch, q_heads, q_len, total] (its layout
// from the op's definition): bool masks become 0 (attend) / -inf (hide).
cpu::MaskView mask_view(const OpContext& ctx, const Tensor& mask, const Geometry& g) {
  const AttentionMaskLayout layout = resolve_attention_mask(ctx.node(), g, mask.shape());
  const float* data = nullptr;
  if (mask.dtype() == DataType::Bool) {
    float* m = scratch<float, MaskTag>(mask.element_count());
    const bool* p = mask.data<bool>();
    for (int64_t i = 0; i < mask.element_count(); ++i) {
      m[i] = p[i] ? 0.0f : -std::numeric_limits<float>::infinity();
    }
    data = m;
  } else {
    attn::require_float(ctx, mask, "attn_mask");
    data = attn::as_float(mask, scratch<float, MaskTag>(mask.element_count()));
  }
  return {data, layout.batch, layout.head, layout.row, layout.columns};
}

struct QTag {};
struct NonpadTag {};
struct OffsetTag {};

void run_attention(OpContext& ctx, const AttentionAttrs& a) {
  const Tensor &q = ctx.input(0), &k = ctx.input(1), &v = ctx.input(2);
  attn::require_float(ctx, q, "Q");
  attn::require_float(ctx, k, "K");
  attn::require_float(ctx, v, "V");
  if (k.dtype() != q.dtype()) ctx.fail("Q and K must have the same element type");
  const bool has_past_key = ctx.has_input(4), has_past_value = ctx.has_input(5);
  if (has_past_key != has_past_value) ctx.fail("past_key and past_value must be given together");
  const Tensor* past_key = has_past_key ? &ctx.input(4) : nullptr;
  const Tensor* past_value = has_past_value ? &ctx.input(5) : nullptr;
  if (past_key && (past_key->dtype() != k.dtype() || past_value->dtype() != v.dtype())) {
    ctx.fail("past_key and past_value must have the element types of K and V");
  }
  const Geometry g = resolve_attention(ctx.node(), a, q.shape(), k.shape(), v.shape(),
                                       past_key ? &past_key->shape() : nullptr,
                                       past_value ? &past_value->shape() : nullptr);
  const int64_t total = g.total();

  cpu::AttentionParams params;
  params.scale = a.has_scale ? a.scale : 1.0f / std::sqrt(static_cast<float>(g.head_size));
  params.softcap = a.softcap;
  if (ctx.has_input(6)) {
    const Tensor& nonpad = ctx.input(6);
    if (nonpad.rank() != 1 || nonpad.shape()[0] != g.batch) {
      ctx.fail("nonpad_kv_seqlen must have shape [" + std::to_string(g.batch) + "], got " +
               nonpad.shape().to_string());
    }
    int64_t* valid = scratch<int64_t, NonpadTag>(g.batch);
    Shape lengths;
    if (!copy_int_list(nonpad, lengths)) ctx.fail("nonpad_kv_seqlen must be int64");
    for (int64_t b = 0; b < g.batch; ++b) {
      if (lengths[b] < 0 || lengths[b] > total) {
        ctx.fail("nonpad_kv_seqlen[" + std::to_string(b) + "] = " + std::to_string(lengths[b]) +
                 " is outside [0, " + std::to_string(total) + "]");
      }
      valid[b] = lengths[b];
    }
    params.kv_valid = valid;
  }
  if (a.is_causal) {
    // Queries are the last q_len positions of the valid keys: query i sees keys up to
    // i + offset.
    int64_t* offset = scratch<int64_t, OffsetTag>(g.batch);
    for (int64_t b = 0; b < g.batch; ++b) {
      offset[b] = params.kv_valid ? params.kv_valid[b] - g.q_len : g.past_len;
    }
    params.causal_offset = offset;
  }

  const cpu::HeadView keys = present<0>(ctx, g, past_key, k, g.head_size, 1);
  const cpu::HeadView values = present<1>(ctx, g, past_value, v, g.v_head_size, 2);
  cpu::MaskView mask;
  if (ctx.has_input(3)) mask = mask_view(ctx, ctx.input(3), g);

  const float* qf = attn::as_float(q, scratch<float, QTag>(q.element_count()));
  const cpu::HeadView queries = view_of(qf, g.packed, g.q_heads, g.q_len, g.head_size);

  Tensor& y = ctx.allocate_output(0, q.dtype(), g.y_shape());
  struct YTag {};
  struct ScoresTag {};
  float* yf = attn::output_buffer<YTag>(y);
  const cpu::HeadView yv = view_of(yf, g.packed, g.q_heads, g.q_len, g.v_head_size);
  const cpu::MutableHeadView y_out{yf, yv.batch, yv.head, yv.row};

  Tensor* scores = nullptr;
  if (ctx.num_outputs() > 3 && ctx.wants_output(3)) {
    scores = &ctx.allocate_output(3, q.dtype(), g.scores_shape());
    params.scores_out = attn::output_buffer<ScoresTag>(*scores);
    params.scores_stage = a.qk_output_mode;
  }
  const cpu::AttentionShape shape{g.batch, g.q_heads,   g.kv_heads,   g.q_len,
                                  total,   g.head_size, g.v_head_size};
  cpu::attention_f32(shape, params, queries, keys, values, mask, y_out);
  attn::finish_output(yf, y);
  if (scores != nullptr) attn::finish_output(params.scores_out, *scores);
}

CpuKernel make_attention(const NodeInfo& info) {
  const AttentionAttrs a = parse_attention_attrs(info);
  // softmax_precision only asks for at least this precision; the softmax always runs in
  // float32 here, so any float type is satisfied.
  return [=](OpContext& ctx) { run_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(attention);
void register_attention_ops(OpRegistry& registry) { registry.add("Attention", make_attention); }

}  // namespace kiln
