// MultiHeadAttention (com.microsoft): attention over already projected Q, K and V.
//
//   query [batch, seq, hidden], or Q, K and V packed as [batch, seq, num_heads, 3, head];
//   key [batch, kv_seq, hidden], K and V packed as [batch, kv_seq, num_heads, 2, head], or keys
//   already split into heads [batch, num_heads, kv_seq, head] (cross attention's cached keys,
//   with value alike); value [batch, kv_seq, v_hidden];
//   bias [hidden + hidden + v_hidden] added to Q, K and V (Q only when K and V come in heads);
//   key_padding_mask (int32) [batch] key lengths, [batch, total] or [batch, seq, total] of 0/1;
//   attention_bias [batch or 1, num_heads or 1, seq, total] added to the scores;
//   past_key/past_value [batch, num_heads, past, head] -> present_key/present_value with the new
//   keys appended; unidirectional hides later keys.
//
// ONNX Runtime's CPU kernel refuses the two packed forms (its CUDA kernel takes them); kiln
// computes them as the same attention over the unpacked tensors.
#include <cmath>
#include <string>

#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/ms_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/ms_attention_common.h"

namespace kiln {
namespace {

using attn::scratch;

enum Input : size_t {
  kQuery,
  kKey,
  kValue,
  kBias,
  kKeyPaddingMask,
  kAttentionBias,
  kPastKey,
  kPastValue,
  kPastSequenceLength,
  kCacheIndirection,
};

// Where Q, K and V's elements are: element (b, s, n, d) of one of them at
// data[b * batch + s * row + n * head + d].
struct Source {
  const float* data = nullptr;
  int64_t batch = 0, row = 0, head = 0;
};

// Copies a source into dst [batch, len, heads * size] contiguous, adding bias[n * size + d].
void gather(const Source& src, int64_t batch, int64_t len, int64_t heads, int64_t size,
            const float* bias, float* dst) {
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < len; ++s) {
      for (int64_t n = 0; n < heads; ++n) {
        const float* from = src.data + b * src.batch + s * src.row + n * src.head;
        float* to = dst + ((b * len + s) * heads + n) * size;
        for (int64_t d = 0; d < size; ++d) to[d] = from[d] + (bias ? bias[n * size + d] : 0.0f);
      }
    }
  }
}

struct QTag {};
struct KTag {};
struct VTag {};
struct InQTag {};
struct InKTag {};
struct InVTag {};
struct BiasInTag {};
struct PastKTag {};
struct PastVTag {};
struct PresentKTag {};
struct PresentVTag {};
struct OutTag {};

const float* floats_of(const Tensor& t, float* scratch_space) {
  return attn::as_float(t, scratch_space);
}

void run_multihead_attention(OpContext& ctx, const MultiHeadAttentionAttrs& a) {
  if (ctx.has_input(kPastSequenceLength) || ctx.has_input(kCacheIndirection)) {
    ctx.fail(
        "past_sequence_length and cache_indirection (shared buffers, beam search) are not "
        "supported");
  }
  if (ctx.num_outputs() > 3 && ctx.wants_output(3)) ctx.fail("the qk output is not supported");
  const Tensor& query = ctx.input(kQuery);
  attn::require_float(ctx, query, "query");
  const Shape& qs = query.shape();
  const int64_t heads = a.num_heads;
  msattn::Problem p;
  p.heads = heads;
  if (qs.size() != 3 && qs.size() != 5) {
    ctx.fail("query must be [batch, seq, hidden] or packed [batch, seq, num_heads, 3, head], got " +
             qs.to_string());
  }
  p.batch = qs[0];
  p.q_len = qs[1];
  const float* qdata = floats_of(query, scratch<float, InQTag>(query.element_count()));
  Source q_src, k_src, v_src;
  bool kv_in_heads = false;
  if (qs.size() == 5) {
    if (qs[2] != heads || qs[3] != 3) {
      ctx.fail("packed query must be [batch, seq, " + std::to_string(heads) + ", 3, head], got " +
               qs.to_string());
    }
    if (ctx.has_input(kKey) || ctx.has_input(kValue)) {
      ctx.fail("with packed Q, K and V, key and value must be absent");
    }
    p.head = p.v_head = qs[4];
    p.kv_len = p.q_len;
    const int64_t row = heads * 3 * p.head;
    q_src = {qdata, p.q_len * row, row, 3 * p.head};
    k_src = {qdata + p.head, p.q_len * row, row, 3 * p.head};
    v_src = {qdata + 2 * p.head, p.q_len * row, row, 3 * p.head};
  } else {
    if (qs[2] % heads != 0) {
      ctx.fail("query's hidden size " + std::to_string(qs[2]) + " is not a multiple of " +
               "num_heads " + std::to_string(heads));
    }
    p.head = qs[2] / heads;
    q_src = {qdata, p.q_len * qs[2], qs[2], p.head};
    if (!ctx.has_input(kKey)) ctx.fail("key is required unless query packs Q, K and V");
    const Tensor& key = ctx.input(kKey);
    if (key.dtype() != query.dtype()) ctx.fail("query and key must have one element type");
    const Shape& ks = key.shape();
    const float* kdata = floats_of(key, scratch<float, InKTag>(key.element_count()));
    if (ks.size() == 5) {
      if (ks[0] != p.batch || ks[2] != heads || ks[3] != 2 || ks[4] != p.head) {
        ctx.fail("packed key/value must be [" + std::to_string(p.batch) + ", kv_seq, " +
                 std::to_string(heads) + ", 2, " + std::to_string(p.head) + "], got " +
                 ks.to_string());
      }
      if (ctx.has_input(kValue)) ctx.fail("with packed K and V, value must be absent");
      p.kv_len = ks[1];
      p.v_head = p.head;
      const int64_t row = heads * 2 * p.head;
      k_src = {kdata, p.kv_len * row, row, 2 * p.head};
      v_src = {kdata + p.head, p.kv_len * row, row, 2 * p.head};
    } else {
      if (!ctx.has_input(kValue)) ctx.fail("value is required with a separate key");
      const Tensor& value = ctx.input(kValue);
      if (value.dtype() != query.dtype()) ctx.fail("query and value must have one element type");
      const Shape& vs = value.shape();
      const float* vdata = floats_of(value, scratch<float, InVTag>(value.element_count()));
      if (ks.size() == 3) {
        if (ks[0] != p.batch || ks[2] != qs[2] || vs.size() != 3 || vs[0] != p.batch ||
            vs[1] != ks[1] || vs[2] % heads != 0) {
          ctx.fail("key and value must be [" + std::to_string(p.batch) + ", kv_seq, " +
                   std::to_string(qs[2]) + "] and [" + std::to_string(p.batch) +
                   ", kv_seq, v_hidden], got " + ks.to_string() + " and " + vs.to_string());
        }
        p.kv_len = ks[1];
        p.v_head = vs[2] / heads;
        k_src = {kdata, p.kv_len * ks[2], ks[2], p.head};
        v_src = {vdata, p.kv_len * vs[2], vs[2], p.v_head};
      } else if (ks.size() == 4) {
        if (ks[0] != p.batch || ks[1] != heads || ks[3] != p.head || vs.size() != 4 ||
            vs[0] != p.batch || vs[1] != heads || vs[2] != ks[2]) {
          ctx.fail("key and value in heads must be [" + std::to_string(p.batch) + ", " +
                   std::to_string(heads) + ", kv_seq, " + std::to_string(p.head) +
                   "] and the same with the value's head size, got " + ks.to_string() + " and " +
                   vs.to_string());
        }
        kv_in_heads = true;
        p.kv_len = ks[2];
        p.v_head = vs[3];
        k_src = {kdata, heads * p.kv_len * p.head, p.head, p.kv_len * p.head};
        v_src = {vdata, heads * p.kv_len * p.v_head, p.v_head, p.kv_len * p.v_head};
      } else {
        ctx.fail("key must be 3-D, 4-D (in heads) or 5-D (packed with value), got " +
                 ks.to_string());
      }
    }
  }

  const float* bias = nullptr;
  if (ctx.has_input(kBias)) {
    const Tensor& b = ctx.input(kBias);
    const int64_t want = heads * (2 * p.head + p.v_head);
    if (b.dtype() != query.dtype() || b.shape() != Shape{want}) {
      ctx.fail("bias must be [" + std::to_string(want) + "] of query's element type, got " +
               b.to_string(0));
    }
    bias = floats_of(b, scratch<float, BiasInTag>(b.element_count()));
  }
  const bool has_past = ctx.has_input(kPastKey);
  if (has_past != ctx.has_input(kPastValue)) {
    ctx.fail("past_key and past_value must be given together");
  }
  const float *past_k = nullptr, *past_v = nullptr;
  if (has_past) {
    if (kv_in_heads) ctx.fail("past_key cannot extend keys given in heads (cross attention)");
    const Tensor &pk = ctx.input(kPastKey), &pv = ctx.input(kPastValue);
    const Shape& ps = pk.shape();
    if (ps.size() != 4 || ps[0] != p.batch || ps[1] != heads || ps[3] != p.head ||
        pv.shape() != Shape{p.batch, heads, ps[2], p.v_head} || pk.dtype() != query.dtype() ||
        pv.dtype() != query.dtype()) {
      ctx.fail("past_key and past_value must be [" + std::to_string(p.batch) + ", " +
               std::to_string(heads) + ", past, head] of query's element type, got " +
               pk.to_string(0) + " and " + pv.to_string(0));
    }
    p.past = ps[2];
    past_k = floats_of(pk, scratch<float, PastKTag>(pk.element_count()));
    past_v = floats_of(pv, scratch<float, PastVTag>(pv.element_count()));
  }

  // Q, K and V contiguous [batch, len, heads * size] with the bias added.
  float* q = scratch<float, QTag>(p.batch * p.q_len * heads * p.head);
  gather(q_src, p.batch, p.q_len, heads, p.head, bias, q);
  const int64_t qrow = heads * p.head;
  const cpu::HeadView qv{q, p.q_len * qrow, p.head, qrow};
  cpu::HeadView kv, vv;
  if (kv_in_heads) {
    kv = {k_src.data, k_src.batch, k_src.head, k_src.row};  // [batch, heads, kv_seq, head]
    vv = {v_src.data, v_src.batch, v_src.head, v_src.row};
  } else {
    float* k = scratch<float, KTag>(p.batch * p.kv_len * heads * p.head);
    float* v = scratch<float, VTag>(p.batch * p.kv_len * heads * p.v_head);
    gather(k_src, p.batch, p.kv_len, heads, p.head, bias ? bias + heads * p.head : nullptr, k);
    gather(v_src, p.batch, p.kv_len, heads, p.v_head, bias ? bias + 2 * heads * p.head : nullptr,
           v);
    kv = {k, p.kv_len * heads * p.head, p.head, heads * p.head};
    vv = {v, p.kv_len * heads * p.v_head, p.v_head, heads * p.v_head};
  }
  // The caches: past + new rows, written into present_key/present_value when wanted.
  auto cache = [&]<class Tag>(Tag, size_t out, const float* past, const cpu::HeadView& fresh,
                              int64_t size) -> cpu::HeadView {
    const bool wanted = ctx.num_outputs() > out && ctx.wants_output(out);
    if (!wanted && past == nullptr) return fresh;
    const Shape shape{p.batch, heads, p.total(), size};
    Tensor* t = wanted ? &ctx.allocate_output(out, query.dtype(), shape) : nullptr;
    float* dst = t ? attn::output_buffer<Tag>(*t) : scratch<float, Tag>(shape.element_count());
    const cpu::HeadView view = msattn::concat_cache(p, past, fresh, size, dst);
    if (t) attn::finish_output(dst, *t);
    return view;
  };
  if (kv_in_heads) {
    // Cross attention's cached keys are returned unchanged as the present.
    cache(PresentKTag{}, 1, nullptr, kv, p.head);
    cache(PresentVTag{}, 2, nullptr, vv, p.v_head);
  } else {
    kv = cache(PresentKTag{}, 1, past_k, kv, p.head);
    vv = cache(PresentVTag{}, 2, past_v, vv, p.v_head);
  }

  msattn::Masking m;
  m.mask = ctx.has_input(kKeyPaddingMask) ? &ctx.input(kKeyPaddingMask) : nullptr;
  m.attention_bias = ctx.has_input(kAttentionBias) ? &ctx.input(kAttentionBias) : nullptr;
  m.filter = a.mask_filter_value;
  m.causal = a.unidirectional;
  Tensor& y = ctx.allocate_output(0, query.dtype(), Shape{p.batch, p.q_len, heads * p.v_head});
  float* yf = attn::output_buffer<OutTag>(y);
  const float scale = a.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(p.head)) : a.scale;
  msattn::attend(ctx, p, scale, m, qv, kv, vv, yf);
  attn::finish_output(yf, y);
}

CpuKernel make_multihead_attention(const NodeInfo& info) {
  const MultiHeadAttentionAttrs a = parse_multihead_attention_attrs(info);
  return [=](OpContext& ctx) { run_multihead_attention(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(ms_multihead_attention);
void register_ms_multihead_attention_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "MultiHeadAttention", make_multihead_attention);
}

}  // namespace kiln
