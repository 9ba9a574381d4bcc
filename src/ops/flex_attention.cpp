// ai.onnx.preview::FlexAttention (version 1): softmax attention over 4-D [batch, heads, seq,
// size] Q, K and V with grouped-query heads and an optional scale (default 1/sqrt(head size)).
// Without modifiers it is the Attention kernel; with score_mod, mask_mod or prob_mod subgraphs
// (flex_attention_mods.h) it runs in stages over the whole [B, H, L, S] score matrix:
// scores, score_mod, mask_mod, softmax, prob_mod, then the product with V.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "backends/cpu/attention_kernel.h"
#include "backends/cpu/softmax_kernel.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/flex_attention_mods.h"

namespace kiln {
namespace {

struct QTag {};
struct KTag {};
struct VTag {};
struct YTag {};
struct ScoresTag {};
struct ProbsTag {};

struct FlexConfig {
  bool has_scale = false;
  float scale = 1.0f;
  float mask_value = -std::numeric_limits<float>::infinity();
  std::optional<DataType> softmax_precision;
  std::shared_ptr<const FlexModifier> score_mod, mask_mod, prob_mod;
  bool has_modifiers() const { return score_mod || mask_mod || prob_mod; }
};

// The staged computation for nodes with modifiers: every score is materialised, since a
// modifier may look at any of them.
void attend_with_modifiers(OpContext& ctx, const FlexConfig& config,
                           const cpu::AttentionShape& shape, float scale, const float* q,
                           const float* k, const float* v, float* y) {
  const FlexDims dims{shape.batch, shape.q_heads, shape.q_len, shape.kv_len};
  const int64_t L = shape.q_len, S = shape.kv_len, D = shape.head_size, Dv = shape.v_head_size;
  if (shape.batch == 0 || shape.q_heads == 0 || L == 0 || Dv == 0) return;  // Y is empty
  // Every score is materialised: long empty-headed Q and K (size 0) would otherwise ask for
  // an L x S matrix past any memory, or overflow its size.
  int64_t score_count = 0;
  if (__builtin_mul_overflow(dims.batch, dims.heads, &score_count) ||
      __builtin_mul_overflow(score_count, L, &score_count) ||
      __builtin_mul_overflow(score_count, S, &score_count) ||
      score_count > (int64_t{1} << 40) / static_cast<int64_t>(sizeof(float))) {
    ctx.fail("the [" + std::to_string(dims.batch) + ", " + std::to_string(dims.heads) + ", " +
             std::to_string(L) + ", " + std::to_string(S) +
             "] score matrix is too large for modifiers");
  }
  const int64_t group = shape.q_heads / shape.kv_heads;
  float* scores = attn::scratch<float, ScoresTag>(static_cast<size_t>(dims.count()));
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t h = 0; h < shape.q_heads; ++h) {
      const float* qh = q + (b * shape.q_heads + h) * L * D;
      const float* kh = k + (b * shape.kv_heads + h / group) * S * D;
      float* sh = scores + (b * shape.q_heads + h) * L * S;
      for (int64_t i = 0; i < L; ++i) {
        for (int64_t j = 0; j < S; ++j) {
          float dot = 0.0f;
          for (int64_t d = 0; d < D; ++d) dot += qh[i * D + d] * kh[j * D + d];
          sh[i * S + j] = dot * scale;
        }
      }
    }
  }
  const DataType value_type = config.softmax_precision.value_or(
      ctx.input(0).dtype() == DataType::Float64 ? DataType::Float64 : DataType::Float32);
  if (config.score_mod) config.score_mod->apply(ctx, 3, dims, value_type, 0.0f, scores);
  if (config.mask_mod) config.mask_mod->apply(ctx, 3, dims, value_type, config.mask_value, scores);
  float* probs = attn::scratch<float, ProbsTag>(static_cast<size_t>(dims.count()));
  cpu::softmax_f32(scores, probs, dims.count() / std::max<int64_t>(S, 1), S, 1, /*log=*/false);
  if (config.prob_mod) config.prob_mod->apply(ctx, 3, dims, value_type, 0.0f, probs);
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t h = 0; h < shape.q_heads; ++h) {
      const float* ph = probs + (b * shape.q_heads + h) * L * S;
      const float* vh = v + (b * shape.kv_heads + h / group) * S * Dv;
      float* yh = y + (b * shape.q_heads + h) * L * Dv;
      for (int64_t i = 0; i < L; ++i) {
        std::fill_n(yh + i * Dv, Dv, 0.0f);
        for (int64_t j = 0; j < S; ++j) {
          const float p = ph[i * S + j];
          for (int64_t d = 0; d < Dv; ++d) yh[i * Dv + d] += p * vh[j * Dv + d];
        }
      }
    }
  }
}

void run_flex_attention(OpContext& ctx, const FlexConfig& config) {
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
  params.scale =
      config.has_scale ? config.scale : 1.0f / std::sqrt(static_cast<float>(shape.head_size));
  auto view = [](const float* p, const Shape& s) {
    return cpu::HeadView{p, s[1] * s[2] * s[3], s[2] * s[3], s[3]};
  };
  const float* qf = attn::as_float(q, attn::scratch<float, QTag>(q.element_count()));
  const float* kf = attn::as_float(k, attn::scratch<float, KTag>(k.element_count()));
  const float* vf = attn::as_float(v, attn::scratch<float, VTag>(v.element_count()));
  const Shape y_shape{shape.batch, shape.q_heads, shape.q_len, shape.v_head_size};
  Tensor& y = ctx.allocate_output(0, q.dtype(), y_shape);
  float* yf = attn::output_buffer<YTag>(y);
  if (config.has_modifiers()) {
    attend_with_modifiers(ctx, config, shape, params.scale, qf, kf, vf, yf);
    attn::finish_output(yf, y);
    return;
  }
  const cpu::HeadView yv = view(yf, y_shape);
  cpu::attention_f32(shape, params, view(qf, qs), view(kf, ks), view(vf, vs), cpu::MaskView{},
                     cpu::MutableHeadView{yf, yv.batch, yv.head, yv.row});
  attn::finish_output(yf, y);
}

CpuKernel make_flex_attention(const NodeInfo& info) {
  FlexConfig config;
  config.has_scale = info.has_attr("scale");
  config.scale = info.attr_float("scale", 1.0f);
  config.mask_value = info.attr_float("mask_value", config.mask_value);
  if (info.has_attr("softmax_precision")) {
    const auto precision = static_cast<DataType>(info.attr_int("softmax_precision", 1));
    if (!attn::is_attention_float(precision)) info.fail("softmax_precision must be a float type");
    config.softmax_precision = precision;
  }
  using Kind = FlexModifier::Kind;
  auto modifier = [&](const char* name, Kind kind) -> std::shared_ptr<const FlexModifier> {
    const ir::Graph* graph = optional_graph_attr(info, name);
    return graph ? std::make_shared<FlexModifier>(*graph, info, kind) : nullptr;
  };
  config.score_mod = modifier("score_mod", Kind::Score);
  config.mask_mod = modifier("mask_mod", Kind::Mask);
  config.prob_mod = modifier("prob_mod", Kind::Prob);
  return [config](OpContext& ctx) { run_flex_attention(ctx, config); };
}

}  // namespace

KILN_CPU_OPS(flex_attention);
void register_flex_attention_ops(OpRegistry& registry) {
  registry.add(ir::kOnnxPreviewDomain, "FlexAttention", make_flex_attention);
}

}  // namespace kiln
