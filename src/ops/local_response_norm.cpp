// LRN (across-channel local response normalization), LpNormalization and
// MeanVarianceNormalization: normalizations whose statistics run across a strided axis or an
// arbitrary set of axes rather than over contiguous rows.
#include <algorithm>
#include <cmath>

#include "backends/cpu/vector_math.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/lrn.h"
#include "opdefs/mean_variance_normalization.h"
#include "ops/all_ops.h"
#include "ops/norm_common.h"

namespace kiln {
namespace {

// Strided reductions keep one accumulator per element of a chunk of the contiguous inner
// dimension, on the stack.
constexpr int64_t kChunk = 256;

void check_data(const OpContext& ctx, const Tensor& x) {
  if (!norm::is_norm_dtype(x.dtype())) {
    ctx.fail("input must be float, float16, bfloat16 or double, got " + x.to_string(0));
  }
}

// --- LRN -------------------------------------------------------------------------------------

CpuKernel make_lrn(const NodeInfo& info) {
  const LrnAttrs attrs = parse_lrn_attrs(info);
  const int64_t size = attrs.size, before = attrs.before, after = attrs.after;
  const double alpha = attrs.alpha, beta = attrs.beta, bias = attrs.bias;

  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_data(ctx, x);
    const Shape& shape = x.shape();
    if (shape.size() < 2) ctx.fail("input X must have shape (N, C, ...), got " + shape.to_string());
    const int64_t channels = shape[1];
    int64_t spatial = 1;
    for (size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
    const int64_t rows = shape[0] * channels;
    const int64_t chunks = (spatial + kChunk - 1) / kChunk;
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        using C = norm::compute_t<T>;
        const T* xp = x.data<T>();
        T* yp = y.mutable_data<T>();
        const C k = static_cast<C>(alpha / static_cast<double>(size));
        parallel_for(rows * chunks, norm::rows_grain(kChunk * size), [&](int64_t b, int64_t e) {
          C acc[kChunk];
          for (int64_t task = b; task < e; ++task) {
            const int64_t r = task / chunks;
            const int64_t s0 = (task % chunks) * kChunk;
            const int64_t len = std::min(kChunk, spatial - s0);
            const int64_t c = r % channels;
            const int64_t n_base = (r - c) * spatial;
            std::fill(acc, acc + len, C(0));
            const int64_t lo = std::max<int64_t>(0, c - before);
            const int64_t hi = std::min(channels - 1, c + after);
            for (int64_t cc = lo; cc <= hi; ++cc) {
              const T* in = xp + n_base + cc * spatial + s0;
              for (int64_t i = 0; i < len; ++i) {
                const C v = norm::load<C>(in[i]);
                acc[i] += v * v;
              }
            }
            const T* in = xp + r * spatial + s0;
            T* out = yp + r * spatial + s0;
            if constexpr (std::is_same_v<C, float>) {
              // (bias + k * sum)^-beta as exp(-beta * log(...)), vectorised over the chunk.
              for (int64_t i = 0; i < len; ++i) acc[i] = static_cast<float>(bias) + k * acc[i];
              cpu::log_f32(acc, acc, len);
              for (int64_t i = 0; i < len; ++i) acc[i] *= static_cast<float>(-beta);
              cpu::exp_f32(acc, acc, len);
              for (int64_t i = 0; i < len; ++i)
                out[i] = norm::store<T>(norm::load<C>(in[i]) * acc[i]);
            } else {
              for (int64_t i = 0; i < len; ++i) {
                out[i] = norm::store<T>(norm::load<C>(in[i]) / std::pow(bias + k * acc[i], beta));
              }
            }
          }
        });
      }
    });
  };
}

// --- LpNormalization -------------------------------------------------------------------------

CpuKernel make_lp_norm(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", -1);
  const int64_t p = info.attr_int("p", 2);
  if (p != 1 && p != 2) info.fail("p must be 1 or 2, got " + std::to_string(p));

  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_data(ctx, x);
    const Shape& shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (axis_attr < -rank || axis_attr >= rank) {
      ctx.fail("axis " + std::to_string(axis_attr) + " is out of range for input rank " +
               std::to_string(rank));
    }
    const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    const int64_t len = shape[axis];
    const int64_t chunks = (inner + kChunk - 1) / kChunk;
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        using C = norm::compute_t<T>;
        const T* xp = x.data<T>();
        T* yp = y.mutable_data<T>();
        // An all-zero vector has norm 0: it stays zero rather than turning into NaN.
        auto inverse = [p](C acc) {
          const C norm_value = p == 1 ? acc : std::sqrt(acc);
          return norm_value > 0 ? C(1) / norm_value : C(0);
        };
        parallel_for(outer * chunks, norm::rows_grain(std::min(inner, kChunk) * len),
                     [&](int64_t b, int64_t e) {
                       C acc[kChunk];
                       for (int64_t task = b; task < e; ++task) {
                         const int64_t o = task / chunks;
                         const int64_t s0 = (task % chunks) * kChunk;
                         const int64_t width = std::min(kChunk, inner - s0);
                         const int64_t base = o * len * inner + s0;
                         std::fill(acc, acc + width, C(0));
                         for (int64_t j = 0; j < len; ++j) {
                           const T* in = xp + base + j * inner;
                           for (int64_t i = 0; i < width; ++i) {
                             const C v = norm::load<C>(in[i]);
                             acc[i] += p == 1 ? std::abs(v) : v * v;
                           }
                         }
                         for (int64_t i = 0; i < width; ++i) acc[i] = inverse(acc[i]);
                         for (int64_t j = 0; j < len; ++j) {
                           const T* in = xp + base + j * inner;
                           T* out = yp + base + j * inner;
                           for (int64_t i = 0; i < width; ++i) {
                             out[i] = norm::store<T>(norm::load<C>(in[i]) * acc[i]);
                           }
                         }
                       }
                     });
      }
    });
  };
}

// --- MeanVarianceNormalization ---------------------------------------------------------------

// The input's dimensions split into kept and reduced ones, with neighbours of the same kind
// merged and size-1 dimensions dropped, so the innermost reduced run is as long as possible.
struct ReductionLayout {
  Shape kept_sizes, kept_strides, red_sizes, red_strides;
  int64_t groups = 1, count = 1;
};

// `reduced` has bit d set when dimension d is reduced.
ReductionLayout reduction_layout(const Shape& shape, uint32_t reduced) {
  ReductionLayout l;
  const Shape strides = strides_of(shape);
  int last_kind = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    const int kind = (reduced >> d) & 1u;
    Shape& sizes = kind ? l.red_sizes : l.kept_sizes;
    Shape& st = kind ? l.red_strides : l.kept_strides;
    if (kind == last_kind) {
      sizes.back() *= shape[d];
      st.back() = strides[d];
    } else {
      sizes.push_back(shape[d]);
      st.push_back(strides[d]);
    }
    last_kind = kind;
  }
  l.groups = l.kept_sizes.element_count();
  l.count = l.red_sizes.element_count();
  return l;
}

// Calls run(offset, length, stride) for each innermost run of the reduced elements of a group.
template <class Run>
void for_each_reduced_run(const ReductionLayout& l, int64_t base, Run&& run) {
  const size_t nr = l.red_sizes.size();
  if (nr == 0) {
    run(base, 1, 1);
    return;
  }
  const int64_t len = l.red_sizes[nr - 1], stride = l.red_strides[nr - 1];
  int64_t index[8] = {};  // merged reduced dims alternate with kept ones, so at most rank/2 + 1
  int64_t offset = base;
  for (;;) {
    run(offset, len, stride);
    size_t d = nr - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      offset += l.red_strides[d];
      if (++index[d] < l.red_sizes[d]) break;
      offset -= l.red_strides[d] * l.red_sizes[d];
      index[d] = 0;
    }
  }
}

CpuKernel make_mvn(const NodeInfo& info) {
  const MvnAttrs attrs = parse_mvn_attrs(info);
  constexpr double kEpsilon = 1e-9;  // the function body's constant, added to the std deviation

  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_data(ctx, x);
    const Shape& shape = x.shape();
    // A bit mask, so that a run allocates nothing.
    const uint32_t reduced =
        mvn_reduced_axes(ctx.node(), attrs, static_cast<int64_t>(shape.size()));
    const ReductionLayout l = reduction_layout(shape, reduced);
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    if (x.element_count() == 0) return;
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        const T* xp = x.data<T>();
        T* yp = y.mutable_data<T>();
        const double inv_count = 1.0 / static_cast<double>(l.count);
        parallel_for(l.groups, norm::rows_grain(l.count), [&](int64_t b, int64_t e) {
          for (int64_t g = b; g < e; ++g) {
            int64_t base = 0, rest = g;
            for (size_t d = l.kept_sizes.size(); d-- > 0;) {
              base += (rest % l.kept_sizes[d]) * l.kept_strides[d];
              rest /= l.kept_sizes[d];
            }
            double sum = 0.0;
            for_each_reduced_run(l, base, [&](int64_t off, int64_t len, int64_t st) {
              if constexpr (std::is_same_v<T, float>) {
                if (st == 1) {
                  sum += cpu::sum_f32(xp + off, len);
                  return;
                }
              }
              for (int64_t i = 0; i < len; ++i) sum += norm::load<double>(xp[off + i * st]);
            });
            const double mean = sum * inv_count;
            double sq = 0.0;
            for_each_reduced_run(l, base, [&](int64_t off, int64_t len, int64_t st) {
              if constexpr (std::is_same_v<T, float>) {
                if (st == 1) {
                  sq += cpu::sum_squared_deviations_f32(xp + off, len, static_cast<float>(mean));
                  return;
                }
              }
              for (int64_t i = 0; i < len; ++i) {
                const double d = norm::load<double>(xp[off + i * st]) - mean;
                sq += d * d;
              }
            });
            const double k = 1.0 / (std::sqrt(sq * inv_count) + kEpsilon);
            using C = norm::compute_t<T>;
            const C a = static_cast<C>(k), shift = static_cast<C>(-mean * k);
            for_each_reduced_run(l, base, [&](int64_t off, int64_t len, int64_t st) {
              if (st == 1) {
                norm::scale_shift(xp + off, yp + off, len, a, shift);
              } else {
                for (int64_t i = 0; i < len; ++i) {
                  yp[off + i * st] = norm::store<T>(norm::load<C>(xp[off + i * st]) * a + shift);
                }
              }
            });
          }
        });
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(local_norm);
void register_local_norm_ops(OpRegistry& registry) {
  registry.add("LRN", make_lrn);
  registry.add("LpNormalization", make_lp_norm);
  registry.add("MeanVarianceNormalization", make_mvn);
}

}  // namespace kiln
