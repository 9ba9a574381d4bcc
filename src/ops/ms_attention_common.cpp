#include "ops/ms_attention_common.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ops/attention_common.h"

namespace kiln::msattn {
namespace {

constexpr float kHidden = -std::numeric_limits<float>::infinity();

struct BiasTag {};
struct AttentionBiasTag {};
struct RowTag {};

std::string dims(std::initializer_list<int64_t> d) { return Shape(d).to_string(); }

// The key padding part of row (b, i): 0 where the key is seen, the filter where it is hidden.
// Called once per (b, i) with `row` holding total floats.
void key_mask_row(const OpContext& ctx, const Problem& p, const Masking& m, int64_t b, int64_t i,
                  float* row) {
  const int64_t t = p.total();
  std::fill(row, row + t, 0.0f);
  if (m.mask == nullptr) return;
  const Shape& s = m.mask->shape();
  const int32_t* d = m.mask->data<int32_t>();
  auto raw = [&](const int32_t* r) {
    for (int64_t j = 0; j < t; ++j) row[j] = r[j] > 0 ? 0.0f : m.filter;
  };
  if (s.size() == 1) {
    const int64_t end = std::clamp<int64_t>(d[b], 0, t);
    std::fill(row + end, row + t, m.filter);
    if (s[0] == 2 * p.batch) {
      const int64_t start = std::clamp<int64_t>(d[p.batch + b], 0, t);
      std::fill(row, row + start, m.filter);
    }
  } else if (s.size() == 2) {
    raw(d + b * t);
  } else if (s.size() == 3) {
    raw(d + (b * p.q_len + i) * t);
  } else {
    raw(d + (b * s[2] + p.past + i) * s[3]);
  }
  (void)ctx;
}

void check_mask(const OpContext& ctx, const Problem& p, const Masking& m) {
  if (m.mask == nullptr) return;
  const Tensor& mask = *m.mask;
  if (mask.dtype() != DataType::Int32) {
    ctx.fail("the mask must be int32, got " + std::string(dtype_name(mask.dtype())));
  }
  const Shape& s = mask.shape();
  const int64_t t = p.total();
  const bool ok =
      (s.size() == 1 && (s[0] == p.batch || (m.allow_left_padding && s[0] == 2 * p.batch))) ||
      (s.size() == 2 && s == Shape{p.batch, t}) ||
      (s.size() == 3 && s == Shape{p.batch, p.q_len, t}) ||
      (s.size() == 4 && m.allow_4d && s[0] == p.batch && s[1] == 1 && s[2] == s[3] &&
       s[2] >= p.past + p.q_len && s[3] >= t);
  if (!ok) {
    ctx.fail("the mask has shape " + s.to_string() + "; it must be " + dims({p.batch}) +
             (m.allow_left_padding ? ", " + dims({2 * p.batch}) : std::string()) + ", " +
             dims({p.batch, t}) + ", " + dims({p.batch, p.q_len, t}) +
             (m.allow_4d ? " or [" + std::to_string(p.batch) + ", 1, max, max]" : std::string()));
  }
}

}  // namespace

cpu::MaskView mask_bias(const OpContext& ctx, const Problem& p, const Masking& m) {
  check_mask(ctx, p, m);
  const int64_t t = p.total();
  int64_t bias_heads = 1;
  const float* extra = nullptr;
  int64_t extra_batch = 0, extra_head = 0;
  if (m.attention_bias != nullptr) {
    const Tensor& ab = *m.attention_bias;
    attn::require_float(ctx, ab, "attention_bias");
    const Shape& s = ab.shape();
    if (s.size() != 4 || (s[0] != 1 && s[0] != p.batch) || (s[1] != 1 && s[1] != p.heads) ||
        s[2] != p.q_len || s[3] != t) {
      ctx.fail("attention_bias must have shape [" + std::to_string(p.batch) + " or 1, " +
               std::to_string(p.heads) + " or 1, " + std::to_string(p.q_len) + ", " +
               std::to_string(t) + "], got " + s.to_string());
    }
    extra = attn::as_float(ab, attn::scratch<float, AttentionBiasTag>(ab.element_count()));
    bias_heads = s[1];
    extra_batch = s[0] == 1 ? 0 : s[1] * s[2] * s[3];
    extra_head = s[1] == 1 ? 0 : s[2] * s[3];
  }
  if (m.mask == nullptr && !m.causal && extra == nullptr) return {};

  const int64_t rows = p.q_len * t;
  float* bias = attn::scratch<float, BiasTag>(p.batch * bias_heads * rows);
  float* row = attn::scratch<float, RowTag>(t);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.q_len; ++i) {
      key_mask_row(ctx, p, m, b, i, row);
      if (m.causal) std::fill(row + std::min(t, p.past + i + 1), row + t, kHidden);
      for (int64_t h = 0; h < bias_heads; ++h) {
        float* dst = bias + (b * bias_heads + h) * rows + i * t;
        std::copy(row, row + t, dst);
        if (extra != nullptr) {
          const float* e = extra + b * extra_batch + h * extra_head + i * t;
          for (int64_t j = 0; j < t; ++j) dst[j] += e[j];
        }
      }
    }
  }
  return {bias, bias_heads * rows, bias_heads == 1 ? 0 : rows, t, t};
}

cpu::HeadView concat_cache(const Problem& p, const float* past, const cpu::HeadView& fresh,
                           int64_t size, float* out) {
  const int64_t t = p.total();
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.heads; ++h) {
      float* d = out + (b * p.heads + h) * t * size;
      if (past != nullptr) {
        const float* src = past + (b * p.heads + h) * p.past * size;
        std::copy(src, src + p.past * size, d);
      }
      const float* f = fresh.data + b * fresh.batch + h * fresh.head;
      for (int64_t s = 0; s < p.kv_len; ++s) {
        std::copy(f + s * fresh.row, f + s * fresh.row + size, d + (p.past + s) * size);
      }
    }
  }
  return {out, p.heads * t * size, t * size, size};
}

void attend(const OpContext& ctx, const Problem& p, float scale, const Masking& m,
            const cpu::HeadView& q, const cpu::HeadView& k, const cpu::HeadView& v, float* y) {
  cpu::AttentionParams params;
  params.scale = scale;
  const cpu::MaskView bias = mask_bias(ctx, p, m);
  const int64_t row = p.heads * p.v_head;
  const cpu::AttentionShape shape{p.batch, p.heads, p.heads, p.q_len, p.total(), p.head, p.v_head};
  cpu::attention_f32(shape, params, q, k, v, bias, {y, p.q_len * row, p.v_head, row});
}

}  // namespace kiln::msattn
