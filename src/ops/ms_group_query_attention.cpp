// GroupQueryAttention (com.microsoft), as ONNX Runtime's CPU kernel computes it: the attention of
// an LLM's decoder layer with a key/value cache.
//
//   query [batch, seq, num_heads * head], key and value [batch, seq, kv_num_heads * head] (or all
//   three packed in query's last axis), past_key/past_value [batch, kv_num_heads, past_buffer,
//   head] (BNSH), seqlens_k[b] = the valid keys of sequence b minus one (past and new),
//   total_sequence_length = the longest such count.
//
// Three kinds of step: the first prompt (seq == total_sequence_length; no past is read and
// sequence b's keys are its first seqlens_k[b] + 1 tokens), token generation (seq == 1) and a
// later prompt chunk (batch 1): the new tokens then follow past_b = seqlens_k[b] + 1 - seq past
// keys. present_key/present_value are [batch, kv_num_heads, max(total_sequence_length,
// past_buffer), head]: the past's first past_b rows, the new keys after them, zeros beyond (a
// past buffer as long as the present one is the shared-buffer form ONNX Runtime's model builder
// uses). Query i of sequence b sees keys up to past_b + i (causal), only the last
// local_window_size of those (that key included), and never past the valid keys.
//
// With do_rotary, query and key are rotated first by cos_cache/sin_cache rows: position_ids
// when given, else past_b + i (a first prompt's padding tokens take row 1, as ONNX Runtime's).
#include <algorithm>
#include <cmath>
#include <string>

#include "backends/cpu/attention_kernel.h"
#include "core/dtype_dispatch.h"
#include "core/element_storage.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/group_query_attention.h"
#include "opdefs/ms_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/op_utils.h"
#include "ops/rotary.h"

namespace kiln {
namespace {

using attn::scratch;

using namespace group_query_attention_input;

using Geometry = GroupQueryAttentionGeometry;

const Shape* shape_of(const OpContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i).shape() : nullptr;
}
const Tensor* optional_input(const OpContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

// The definition's geometry (opdefs/group_query_attention.h), and the element types it leaves
// to the kernels: one float type for query, key, value and the past.
Geometry resolve(const OpContext& ctx, const GroupQueryAttentionAttrs& a) {
  const Tensor& query = ctx.input(kQuery);
  attn::require_float(ctx, query, "query");
  const Geometry g = resolve_group_query_attention(
      ctx.node(), a, query.shape(), shape_of(ctx, kKey), shape_of(ctx, kValue),
      shape_of(ctx, kPastKey), shape_of(ctx, kPastValue), optional_input(ctx, kSeqlensK),
      optional_input(ctx, kTotalSeqLen));
  if (!g.packed) {
    for (size_t i : {size_t{kKey}, size_t{kValue}}) {
      if (ctx.input(i).dtype() != query.dtype())
        ctx.fail("query, key and value must have one element type");
    }
  }
  if (ctx.has_input(kPastKey) && (ctx.input(kPastKey).dtype() != query.dtype() ||
                                  ctx.input(kPastValue).dtype() != query.dtype())) {
    ctx.fail("past_key and past_value must have query's element type");
  }
  return g;
}

// Each sequence's valid keys and where its new tokens start (seqlens_k and the kind of step).
struct Lengths {
  const int64_t* valid = nullptr;  // seqlens_k[b] + 1
  const int64_t* past = nullptr;   // keys before the new tokens
};

// Copies `heads` heads starting at feature `first` of each token of `src` (rows of `width`
// floats) into dst [batch, seq, heads * head], contiguous.
void gather_heads(const float* src, int64_t width, int64_t first, const Geometry& g, int64_t heads,
                  float* dst) {
  const int64_t n = heads * g.head;
  for (int64_t t = 0; t < g.batch * g.seq; ++t) {
    std::copy(src + t * width + first, src + t * width + first + n, dst + t * n);
  }
}

// Rounds float32 values to the nearest of `dtype` (float16 and bfloat16; the wider types hold
// them exactly), in place.
void round_to(DataType dtype, float* x, int64_t n) {
  visit_dtype(dtype, [&]<class T>() {
    if constexpr (is_small_float_v<T>) {
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(T(x[i]));
    }
  });
}

struct QueryTag {};
struct KeyTag {};
struct ValueTag {};
struct InputTag {};
struct CosTag {};
struct SinTag {};
struct PastKeyTag {};
struct PastValueTag {};
struct PresentKeyTag {};
struct PresentValueTag {};
struct BiasTag {};
struct OutTag {};

// Writes the new rows after each sequence's past rows in `present` [batch, kv_heads,
// present_len, head].
void append_rows(const Geometry& g, const Lengths& len, const float* fresh, float* present) {
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t h = 0; h < g.kv_heads; ++h) {
      float* dst = present + (b * g.kv_heads + h) * g.present_len * g.head;
      for (int64_t s = 0; s < g.seq; ++s) {
        const float* row = fresh + ((b * g.seq + s) * g.kv_heads + h) * g.head;
        std::copy(row, row + g.head, dst + (len.past[b] + s) * g.head);
      }
    }
  }
}

// present = the past's first past_b rows, then the new rows, zeros beyond. A donated float32
// past as long as the present (the shared-buffer form) becomes the present in place: only the
// new rows are written, and the rows beyond keep what the buffer held (no reader looks there).
template <class PresentTag, class PastInTag>
float* build_present(OpContext& ctx, const Geometry& g, const Lengths& len, size_t past_input,
                     const float* fresh, size_t out_index) {
  if (ctx.has_input(past_input) && ctx.may_overwrite_input(past_input) &&
      ctx.wants_output(out_index) && ctx.input(past_input).dtype() == DataType::Float32 &&
      g.past_buffer == g.present_len) {
    Tensor cache = ctx.input(past_input);  // the same memory, writable
    float* present = cache.mutable_data<float>();
    append_rows(g, len, fresh, present);
    ctx.set_output(out_index, std::move(cache));
    return present;
  }
  const Shape shape{g.batch, g.kv_heads, g.present_len, g.head};
  const int64_t count = g.batch * g.kv_heads * g.present_len * g.head;
  Tensor* out = ctx.wants_output(out_index)
                    ? &ctx.allocate_output(out_index, ctx.input(kQuery).dtype(), shape)
                    : nullptr;
  float* present = out ? attn::output_buffer<PresentTag>(*out) : scratch<float, PresentTag>(count);
  std::fill(present, present + count, 0.0f);
  const float* past = nullptr;
  if (ctx.has_input(past_input)) {
    const Tensor& p = ctx.input(past_input);
    past = attn::as_float(p, scratch<float, PastInTag>(p.element_count()));
  }
  if (past != nullptr) {
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t h = 0; h < g.kv_heads; ++h) {
        const float* src = past + (b * g.kv_heads + h) * g.past_buffer * g.head;
        std::copy(src, src + len.past[b] * g.head,
                  present + (b * g.kv_heads + h) * g.present_len * g.head);
      }
    }
  }
  append_rows(g, len, fresh, present);
  if (out) attn::finish_output(present, *out);
  return present;
}

// attention_bias [batch or 1, num_heads or 1, seq, total_sequence_length], added to the scores.
cpu::MaskView bias_view(const OpContext& ctx, const Geometry& g) {
  if (!ctx.has_input(kAttentionBias)) return {};
  const Tensor& bias = ctx.input(kAttentionBias);
  attn::require_float(ctx, bias, "attention_bias");
  const Shape& s = bias.shape();
  check_group_query_attention_bias(ctx.node(), g, s);
  const float* data = attn::as_float(bias, scratch<float, BiasTag>(bias.element_count()));
  return {data, s[0] == 1 ? 0 : s[1] * s[2] * s[3], s[1] == 1 ? 0 : s[2] * s[3], s[3], s[3]};
}

void run_group_query_attention(OpContext& ctx, const GroupQueryAttentionAttrs& a) {
  for (size_t i = kHeadSink; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i)) {
      ctx.fail("input " + std::to_string(i) +
               " (head_sink, quantized-cache scales or Q/K norm weights) is not supported");
    }
  }
  const Geometry g = resolve(ctx, a);
  const GroupQuerySequences seqs =
      resolve_group_query_sequences(ctx.node(), g, ctx.input(kSeqlensK));
  const Lengths len{seqs.valid.data(), seqs.past.data()};
  const Tensor& query = ctx.input(kQuery);
  const float* qin = attn::as_float(query, scratch<float, InputTag>(query.element_count()));

  // Q and the new K and V, [batch, seq, heads * head] each.
  const int64_t width = g.packed ? (g.heads + 2 * g.kv_heads) * g.head : g.heads * g.head;
  float* q = scratch<float, QueryTag>(g.batch * g.seq * g.heads * g.head);
  float* k = scratch<float, KeyTag>(g.batch * g.seq * g.kv_heads * g.head);
  float* v = scratch<float, ValueTag>(g.batch * g.seq * g.kv_heads * g.head);
  gather_heads(qin, width, 0, g, g.heads, q);
  if (g.packed) {
    gather_heads(qin, width, g.heads * g.head, g, g.kv_heads, k);
    gather_heads(qin, width, (g.heads + g.kv_heads) * g.head, g, g.kv_heads, v);
  } else {
    attn::copy_to_float(ctx.input(kKey), k);
    attn::copy_to_float(ctx.input(kValue), v);
  }

  if (a.do_rotary) {
    if (!ctx.has_input(kCosCache) || !ctx.has_input(kSinCache)) {
      ctx.fail("do_rotary needs cos_cache and sin_cache");
    }
    const Tensor &cos = ctx.input(kCosCache), &sin = ctx.input(kSinCache);
    const Shape& cs = cos.shape();
    check_group_query_rotary_caches(ctx.node(), g, cs, sin.shape());
    if (cos.dtype() != query.dtype() || sin.dtype() != query.dtype()) {
      ctx.fail("cos_cache and sin_cache must have query's element type");
    }
    const std::vector<int64_t> row_list =
        group_query_rotary_rows(ctx.node(), g, seqs, optional_input(ctx, kPositionIds), cs[0]);
    const int64_t* rows = row_list.data();
    const float* cf = attn::as_float(cos, scratch<float, CosTag>(cos.element_count()));
    const float* sf = attn::as_float(sin, scratch<float, SinTag>(sin.element_count()));
    RotaryGeometry rq{true, g.batch, g.heads, g.seq, g.head, cs[1] * 2};
    rotate_f32(rq, a.rotary_interleaved, q, cf, sf, rows, cs[1], q);
    RotaryGeometry rk = rq;
    rk.heads = g.kv_heads;
    rotate_f32(rk, a.rotary_interleaved, k, cf, sf, rows, cs[1], k);
    // The rotated Q and K are values of the input's type, as ONNX Runtime stores them.
    round_to(query.dtype(), q, g.batch * g.seq * g.heads * g.head);
    round_to(query.dtype(), k, g.batch * g.seq * g.kv_heads * g.head);
  } else if (ctx.has_input(kCosCache) || ctx.has_input(kSinCache)) {
    ctx.fail("cos_cache and sin_cache are given but do_rotary is 0");
  }

  const float* keys = build_present<PresentKeyTag, PastKeyTag>(ctx, g, len, kPastKey, k, 1);
  const float* values = build_present<PresentValueTag, PastValueTag>(ctx, g, len, kPastValue, v, 2);

  Tensor& y = ctx.allocate_output(0, query.dtype(), Shape{g.batch, g.seq, g.heads * g.head});
  float* yf = attn::output_buffer<OutTag>(y);
  cpu::AttentionParams params;
  params.scale = a.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(g.head)) : a.scale;
  params.softcap = a.softcap;
  params.kv_valid = len.valid;
  if (a.causal) {
    params.causal_offset = len.past;
    params.local_window = a.local_window_size;
  }
  const int64_t qrow = g.heads * g.head;
  const int64_t kv_block = g.present_len * g.head;
  const cpu::AttentionShape shape{g.batch,       g.heads, g.kv_heads, g.seq,
                                  g.present_len, g.head,  g.head};
  cpu::attention_f32(shape, params, {q, g.seq * qrow, g.head, qrow},
                     {keys, g.kv_heads * kv_block, kv_block, g.head},
                     {values, g.kv_heads * kv_block, kv_block, g.head}, bias_view(ctx, g),
                     {yf, g.seq * qrow, g.head, qrow});
  attn::finish_output(yf, y);
}

CpuKernel make_group_query_attention(const NodeInfo& info) {
  const GroupQueryAttentionAttrs a = parse_group_query_attention_attrs(info);
  return [=](OpContext& ctx) { run_group_query_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(ms_group_query_attention);
void register_ms_group_query_attention_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "GroupQueryAttention", make_group_query_attention);
}

}  // namespace kiln
