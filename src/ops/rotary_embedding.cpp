// RotaryEmbedding (opset 23): rotates pairs of each head's first rotary_embedding_dim features
// by position-dependent angles given as cos/sin caches:
//
//   (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos)
//
// where the pairs are (x[i], x[i + dim/2]) by default and (x[2i], x[2i+1]) when interleaved.
// The caches are indexed by position_ids ([batch, seq] into [max_position, dim/2]) or, without
// position_ids, already hold one row per token ([batch, seq, dim/2]). Input is 4-D
// [batch, heads, seq, head_size] or 3-D [batch, seq, heads * head_size] (num_heads given).
//
// ONNX Runtime's RotaryEmbedding (com.microsoft) is the same rotation with its inputs in another
// order, (input, position_ids, cos_cache, sin_cache): position_ids is always given, either
// [batch, seq] or one start offset (token s of every sequence at offset + s), and the caches
// are [max_position, >= rotary_dim / 2]. On a 3-D input without num_heads the head size is
// twice the caches' width.
#include <string>
#include <type_traits>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/rotary.h"

namespace kiln {
namespace {

struct CacheRowTag {};

template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
void rotate(const RotaryGeometry& g, bool interleaved, const T* x, const T* cos_cache,
            const T* sin_cache, const int64_t* cache_row, int64_t cache_stride, T* y) {
  using C = Compute<T>;
  const int64_t half = g.rotary_dim / 2;
  // Element (b, h, s, d) of the input and the output.
  const int64_t head_stride = g.packed ? g.head_size : g.seq * g.head_size;
  const int64_t seq_stride = g.packed ? g.heads * g.head_size : g.head_size;
  const int64_t rows = g.batch * g.heads * g.seq;
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, g.head_size)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t s = r % g.seq, h = (r / g.seq) % g.heads,
                                 b = r / (g.seq * g.heads);
                   const int64_t offset =
                       b * g.heads * g.seq * g.head_size + h * head_stride + s * seq_stride;
                   const T* in = x + offset;
                   T* out = y + offset;
                   const int64_t row = cache_row[b * g.seq + s];
                   const T* c = cos_cache + row * cache_stride;
                   const T* sn = sin_cache + row * cache_stride;
                   for (int64_t i = 0; i < half; ++i) {
                     const int64_t i1 = interleaved ? 2 * i : i;
                     const int64_t i2 = interleaved ? 2 * i + 1 : i + half;
                     const C x1 = static_cast<C>(in[i1]), x2 = static_cast<C>(in[i2]);
                     const C cv = static_cast<C>(c[i]), sv = static_cast<C>(sn[i]);
                     out[i1] = from_double<T>(x1 * cv - x2 * sv);
                     out[i2] = from_double<T>(x1 * sv + x2 * cv);
                   }
                   for (int64_t d = g.rotary_dim; d < g.head_size; ++d) out[d] = in[d];
                 }
               });
}

void run_rotary(OpContext& ctx, const RotaryAttrs& a) {
  const Tensor &x = ctx.input(0), &cos_cache = ctx.input(1), &sin_cache = ctx.input(2);
  attn::require_float(ctx, x, "input");
  if (cos_cache.dtype() != x.dtype() || sin_cache.dtype() != x.dtype()) {
    ctx.fail("cos_cache and sin_cache must have the input's element type");
  }
  const RotaryGeometry g = resolve_rotary(ctx.node(), a, x.shape());
  const Shape& cs = cos_cache.shape();
  check_rotary_caches(ctx.node(), g, cs, sin_cache.shape(),
                      ctx.has_input(3) ? &ctx.input(3).shape() : nullptr);
  const int64_t tokens = g.batch * g.seq;
  int64_t* cache_row = attn::scratch<int64_t, CacheRowTag>(tokens);
  if (ctx.has_input(3)) {
    const Tensor& ids = ctx.input(3);
    Shape values;
    if (!copy_int_list(ids, values)) ctx.fail("position_ids must be an int64 tensor");
    for (int64_t t = 0; t < tokens; ++t) {
      if (values[t] < 0 || values[t] >= cs[0]) {
        ctx.fail("position id " + std::to_string(values[t]) + " is outside the caches' " +
                 std::to_string(cs[0]) + " rows");
      }
      cache_row[t] = values[t];
    }
  } else {
    for (int64_t t = 0; t < tokens; ++t) cache_row[t] = t;
  }
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  if (x.element_count() == 0) return;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      rotate<T>(g, a.interleaved, x.data<T>(), cos_cache.data<T>(), sin_cache.data<T>(), cache_row,
                cs.back(), y.mutable_data<T>());
    }
  });
}

// com.microsoft's form: the geometry from the input and the caches' width.
RotaryGeometry ms_geometry(const OpContext& ctx, const RotaryAttrs& a, const Shape& s,
                           int64_t cache_width) {
  RotaryGeometry g;
  if (s.size() == 4) {
    g = {false, s[0], s[1], s[2], s[3], 0};
  } else if (s.size() == 3) {
    const int64_t hidden = s[2];
    const int64_t head_size = a.num_heads > 0 ? hidden / a.num_heads : 2 * cache_width;
    if (head_size <= 0 || hidden % head_size != 0 ||
        (a.num_heads > 0 && hidden % a.num_heads != 0)) {
      ctx.fail("hidden size " + std::to_string(hidden) + " does not split into heads of " +
               (a.num_heads > 0 ? std::to_string(a.num_heads) + " heads"
                                : "twice the caches' width " + std::to_string(cache_width)));
    }
    g = {true, s[0], hidden / head_size, s[1], head_size, 0};
  } else {
    ctx.fail("input must be 3-D or 4-D, got shape " + s.to_string());
  }
  set_rotary_dim(ctx.node(), a, g);
  if (cache_width < g.rotary_dim / 2) {
    ctx.fail("the caches' width " + std::to_string(cache_width) +
             " is less than half the rotary "
             "dimension " +
             std::to_string(g.rotary_dim));
  }
  return g;
}

void run_ms_rotary(OpContext& ctx, const RotaryAttrs& a) {
  const Tensor &x = ctx.input(0), &ids = ctx.input(1), &cos_cache = ctx.input(2),
               &sin_cache = ctx.input(3);
  attn::require_float(ctx, x, "input");
  if (cos_cache.dtype() != x.dtype() || sin_cache.dtype() != x.dtype()) {
    ctx.fail("cos_cache and sin_cache must have the input's element type");
  }
  const Shape& cs = cos_cache.shape();
  if (cs.size() != 2 || sin_cache.shape() != cs) {
    ctx.fail("cos_cache and sin_cache must be 2-D [max_position, width] of one shape, got " +
             cs.to_string() + " and " + sin_cache.shape().to_string());
  }
  const RotaryGeometry g = ms_geometry(ctx, a, x.shape(), cs[1]);
  Shape values;
  if (!copy_int_list(ids, values) || ids.dtype() != DataType::Int64) {
    ctx.fail("position_ids must be an int64 tensor, got " + ids.to_string(0));
  }
  const bool offset = ids.rank() <= 1 && ids.element_count() == 1;
  if (!offset && ids.shape() != Shape{g.batch, g.seq}) {
    ctx.fail("position_ids must be [" + std::to_string(g.batch) + ", " + std::to_string(g.seq) +
             "] or a single start offset, got shape " + ids.shape().to_string());
  }
  const int64_t tokens = g.batch * g.seq;
  int64_t* cache_row = attn::scratch<int64_t, CacheRowTag>(tokens);
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t row = offset ? values[0] + t % g.seq : values[t];
    if (row < 0 || row >= cs[0]) {
      ctx.fail("position " + std::to_string(row) + " is outside the caches' " +
               std::to_string(cs[0]) + " rows");
    }
    cache_row[t] = row;
  }
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  if (x.element_count() == 0) return;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      rotate<T>(g, a.interleaved, x.data<T>(), cos_cache.data<T>(), sin_cache.data<T>(), cache_row,
                cs[1], y.mutable_data<T>());
    }
  });
}

CpuKernel make_ms_rotary_embedding(const NodeInfo& info) {
  const RotaryAttrs a = parse_rotary_attrs(info);
  if (a.rotary_dim > 0 && a.num_heads == 0) {
    info.fail("rotary_embedding_dim needs num_heads (the head size is then hidden / num_heads)");
  }
  if (info.attr_int("is_packed_batching", 0) != 0) {
    info.fail("is_packed_batching=1 (packed variable-length batches) is not supported");
  }
  if (info.num_inputs() < 4) info.fail("expects input, position_ids, cos_cache and sin_cache");
  return [=](OpContext& ctx) { run_ms_rotary(ctx, a); };
}

CpuKernel make_rotary_embedding(const NodeInfo& info) {
  const RotaryAttrs a = parse_rotary_attrs(info);
  return [=](OpContext& ctx) { run_rotary(ctx, a); };
}

}  // namespace

void rotate_f32(const RotaryGeometry& g, bool interleaved, const float* x, const float* cos_cache,
                const float* sin_cache, const int64_t* cache_row, int64_t cache_stride, float* y) {
  rotate<float>(g, interleaved, x, cos_cache, sin_cache, cache_row, cache_stride, y);
}

KILN_CPU_OPS(rotary_embedding);
void register_rotary_embedding_ops(OpRegistry& registry) {
  registry.add("RotaryEmbedding", make_rotary_embedding);
  registry.add(ir::kMicrosoftDomain, "RotaryEmbedding", make_ms_rotary_embedding);
}

}  // namespace kiln
