// EmbedLayerNormalization (com.microsoft): a BERT encoder's embedding layer in one node.
//
//   sum[b, s]    = word_embedding[input_ids[b, s]] + position_embedding[position]
//                  + segment_embedding[segment_ids[b, s]]        (when segment ids are given)
//   output[b, s] = LayerNormalization(sum[b, s]) * gamma + beta
//
// position is position_ids[b, s] ([batch, seq] or one row [1, seq] for every sequence) when
// given, else s. mask_index[b] counts the ones in mask[b, :] (zeros without a mask);
// embedding_sum is the sum before the normalization.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/ms_attention.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/norm_common.h"

namespace kiln {
namespace {

using attn::scratch;

enum Input : size_t {
  kInputIds,
  kSegmentIds,
  kWordEmbedding,
  kPositionEmbedding,
  kSegmentEmbedding,
  kGamma,
  kBeta,
  kMask,
  kPositionIds,
};

struct WordTag {};
struct PositionTag {};
struct SegmentTag {};
struct GammaTag {};
struct BetaTag {};
struct OutTag {};
struct SumTag {};

// An id tensor of shape [batch, seq] (or `alt` when non-empty) as int64 values.
Shape ids_of(const OpContext& ctx, size_t i, const std::string& name, const Shape& want,
             const Shape& alt = {}) {
  const Tensor& t = ctx.input(i);
  Shape values;
  if ((t.dtype() != DataType::Int32 && t.dtype() != DataType::Int64) || !copy_int_list(t, values) ||
      (t.shape() != want && (alt.empty() || t.shape() != alt))) {
    ctx.fail(name + " must be an int32 tensor of shape " + want.to_string() +
             (alt.empty() ? "" : " or " + alt.to_string()) + ", got " + t.to_string(0));
  }
  return values;
}

// A [rows, hidden] embedding table as float32.
const float* table_of(const OpContext& ctx, size_t i, const std::string& name, int64_t hidden,
                      float* space) {
  const Tensor& t = ctx.input(i);
  attn::require_float(ctx, t, name);
  if (t.rank() != 2 || t.shape()[1] != hidden) {
    ctx.fail(name + " must be [rows, " + std::to_string(hidden) + "], got " +
             t.shape().to_string());
  }
  return attn::as_float(t, space);
}

void check_row(const OpContext& ctx, int64_t id, int64_t rows, const std::string& what, int64_t b,
               int64_t s) {
  if (id < 0 || id >= rows) {
    ctx.fail(what + " " + std::to_string(id) + " at [" + std::to_string(b) + ", " +
             std::to_string(s) + "] is outside the table's " + std::to_string(rows) + " rows");
  }
}

void run_embed_layer_norm(OpContext& ctx, const EmbedLayerNormAttrs& a) {
  for (size_t i : {size_t{kInputIds}, size_t{kWordEmbedding}, size_t{kPositionEmbedding},
                   size_t{kGamma}, size_t{kBeta}}) {
    if (!ctx.has_input(i)) {
      ctx.fail("input_ids, word_embedding, position_embedding, gamma and beta are required");
    }
  }
  const Tensor& ids_t = ctx.input(kInputIds);
  if (ids_t.rank() != 2) ctx.fail("input_ids must be [batch, seq], got " + ids_t.to_string(0));
  const int64_t batch = ids_t.shape()[0], seq = ids_t.shape()[1];
  const Shape bs{batch, seq};
  const Tensor& word_t = ctx.input(kWordEmbedding);
  if (word_t.rank() != 2) ctx.fail("word_embedding must be 2-D, got " + word_t.to_string(0));
  const int64_t hidden = word_t.shape()[1];
  const Shape ids = ids_of(ctx, kInputIds, "input_ids", bs);
  const float* word = table_of(ctx, kWordEmbedding, "word_embedding", hidden,
                               scratch<float, WordTag>(word_t.element_count()));
  const Tensor& pos_t = ctx.input(kPositionEmbedding);
  const float* pos = table_of(ctx, kPositionEmbedding, "position_embedding", hidden,
                              scratch<float, PositionTag>(pos_t.element_count()));
  const bool segments = ctx.has_input(kSegmentIds);
  if (segments != ctx.has_input(kSegmentEmbedding)) {
    ctx.fail("segment_ids and segment_embedding must be given together");
  }
  Shape seg_ids;
  const float* seg = nullptr;
  if (segments) {
    seg_ids = ids_of(ctx, kSegmentIds, "segment_ids", bs);
    const Tensor& t = ctx.input(kSegmentEmbedding);
    seg = table_of(ctx, kSegmentEmbedding, "segment_embedding", hidden,
                   scratch<float, SegmentTag>(t.element_count()));
  }
  Shape positions;
  bool shared_positions = false;
  if (ctx.has_input(kPositionIds)) {
    positions = ids_of(ctx, kPositionIds, "position_ids", bs, Shape{1, seq});
    shared_positions = ctx.input(kPositionIds).shape()[0] == 1 && batch != 1;
  }
  const float* gamma = nullptr;
  const float* beta = nullptr;
  for (size_t i : {size_t{kGamma}, size_t{kBeta}}) {
    const Tensor& t = ctx.input(i);
    attn::require_float(ctx, t, i == kGamma ? "gamma" : "beta");
    if (t.shape() != Shape{hidden}) {
      ctx.fail(std::string(i == kGamma ? "gamma" : "beta") + " must be [" + std::to_string(hidden) +
               "], got " + t.shape().to_string());
    }
    const float* f = i == kGamma ? attn::as_float(t, scratch<float, GammaTag>(hidden))
                                 : attn::as_float(t, scratch<float, BetaTag>(hidden));
    (i == kGamma ? gamma : beta) = f;
  }
  // Every row index is checked before any is read.
  const int64_t word_rows = word_t.shape()[0], pos_rows = pos_t.shape()[0];
  const int64_t seg_rows = segments ? ctx.input(kSegmentEmbedding).shape()[0] : 0;
  auto position = [&](int64_t b, int64_t s) {
    if (positions.empty()) return s;
    return positions[(shared_positions ? 0 : b) * seq + s];
  };
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < seq; ++s) {
      check_row(ctx, ids[b * seq + s], word_rows, "input id", b, s);
      check_row(ctx, position(b, s), pos_rows, "position", b, s);
      if (segments) check_row(ctx, seg_ids[b * seq + s], seg_rows, "segment id", b, s);
    }
  }

  const DataType dtype = word_t.dtype();
  const Shape out_shape{batch, seq, hidden};
  Tensor& out = ctx.allocate_output(0, dtype, out_shape);
  float* y = attn::output_buffer<OutTag>(out);
  Tensor* sum_out = ctx.num_outputs() > 2 && ctx.wants_output(2)
                        ? &ctx.allocate_output(2, dtype, out_shape)
                        : nullptr;
  float* sum = sum_out ? attn::output_buffer<SumTag>(*sum_out)
                       : scratch<float, SumTag>(out_shape.element_count());
  parallel_for(batch * seq, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, hidden)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t t = begin; t < end; ++t) {
                   const int64_t b = t / seq, s = t % seq;
                   const float* w = word + ids[t] * hidden;
                   const float* p = pos + position(b, s) * hidden;
                   float* x = sum + t * hidden;
                   for (int64_t d = 0; d < hidden; ++d) x[d] = w[d] + p[d];
                   if (segments) {
                     const float* g = seg + seg_ids[t] * hidden;
                     for (int64_t d = 0; d < hidden; ++d) x[d] += g[d];
                   }
                   double mean = 0.0, var = 0.0;
                   norm::row_moments<float>(x, hidden, false, mean, var);
                   const double inv = 1.0 / std::sqrt(var + a.epsilon);
                   float* o = y + t * hidden;
                   for (int64_t d = 0; d < hidden; ++d) {
                     o[d] = static_cast<float>((x[d] - mean) * inv) * gamma[d] + beta[d];
                   }
                 }
               });
  attn::finish_output(y, out);
  if (sum_out) attn::finish_output(sum, *sum_out);

  if (a.mask_index && ctx.num_outputs() > 1 && ctx.wants_output(1)) {
    Tensor& mi = ctx.allocate_output(1, DataType::Int32, Shape{batch});
    int32_t* m = mi.mutable_data<int32_t>();
    std::fill(m, m + batch, 0);
    if (ctx.has_input(kMask)) {
      const Shape mask = ids_of(ctx, kMask, "mask", bs);
      for (int64_t b = 0; b < batch; ++b) {
        m[b] = static_cast<int32_t>(
            std::count(mask.begin() + b * seq, mask.begin() + (b + 1) * seq, int64_t{1}));
      }
    }
  }
}

CpuKernel make_embed_layer_norm(const NodeInfo& info) {
  const EmbedLayerNormAttrs a = parse_embed_layer_norm_attrs(info);
  return [=](OpContext& ctx) { run_embed_layer_norm(ctx, a); };
}

}  // namespace

KILN_CPU_OPS(ms_embed_layer_norm);
void register_ms_embed_layer_norm_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "EmbedLayerNormalization", make_embed_layer_norm);
}

}  // namespace kiln
