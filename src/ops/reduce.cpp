// The CPU kernels of the Reduce* family and ArgMax / ArgMin (definition: opdefs/reduce.h).
//
// The reduction itself works on a coalesced view of the input: dimensions of extent 1 are
// dropped and neighbours that are both reduced or both kept are merged, so that every layout
// becomes an alternation like [kept, reduced, kept]. The input is then read once, in memory
// order, accumulating into the output positions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/reduce.h"
#include "ops/all_ops.h"
#include "ops/wrapping_int.h"

namespace kiln {
namespace {

// Ops whose result over a single element is the element itself: with noop_with_empty_axes
// they can hand the input over unchanged.
bool is_identity_on_one(ReduceOp op) {
  return op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Max ||
         op == ReduceOp::Min || op == ReduceOp::Prod || op == ReduceOp::LogSumExp;
}

// --- accumulation ---------------------------------------------------------------------------

// The type values are accumulated in. Floats accumulate in float (double for double); integer
// sums and products stay in the element type, wrapping like ONNX Runtime's (means sum in 64
// bits); the ops that need fractions (L2, LogSum, LogSumExp) accumulate integers in double.
template <class T, ReduceOp Op>
struct AccumulatorOf {
  using type = std::conditional_t<
      std::is_same_v<T, double>, double,
      std::conditional_t<
          is_float_like_v<T>, float,
          std::conditional_t<
              Op == ReduceOp::L2 || Op == ReduceOp::LogSum || Op == ReduceOp::LogSumExp, double,
              // A mean of many small integers needs a wide sum before the division.
              std::conditional_t<Op == ReduceOp::Mean && is_plain_int_v<T>,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, T>>>>;
};
template <class T, ReduceOp Op>
using Acc = typename AccumulatorOf<T, Op>::type;

template <class A, ReduceOp Op>
constexpr A identity_value() {
  if constexpr (Op == ReduceOp::Prod) {
    return A(1);
  } else if constexpr (Op == ReduceOp::Max) {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::lowest();
  } else if constexpr (Op == ReduceOp::Min) {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::max();
  } else {
    return A(0);
  }
}

// The per-element transformation before combining. `shift` is the running maximum for
// LogSumExp and unused otherwise.
template <class A, ReduceOp Op, class T>
inline A map_value(T raw, A shift) {
  A v;
  if constexpr (is_small_float_v<T>) {
    v = static_cast<A>(static_cast<float>(raw));
  } else {
    v = static_cast<A>(raw);
  }
  if constexpr (Op == ReduceOp::L1) {
    if constexpr (std::is_signed_v<A>) return v < A(0) ? wrapping_neg(v) : v;
    return v;
  } else if constexpr (Op == ReduceOp::L2 || Op == ReduceOp::SumSquare) {
    return wrapping_mul(v, v);
  } else if constexpr (Op == ReduceOp::LogSumExp) {
    return std::exp(v - shift);
  } else {
    (void)shift;
    return v;
  }
}

template <class A, ReduceOp Op>
inline A combine(A acc, A v) {
  if constexpr (Op == ReduceOp::Prod) {
    return wrapping_mul(acc, v);
  } else if constexpr (Op == ReduceOp::Max) {
    // NaN propagates, as in numpy and ONNX Runtime.
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(v)) return v;
    }
    return v > acc ? v : acc;
  } else if constexpr (Op == ReduceOp::Min) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(v)) return v;
    }
    return v < acc ? v : acc;
  } else {
    return wrapping_add(acc, v);
  }
}

template <class T, ReduceOp Op, class A>
inline T finalize(A acc, int64_t count, A shift) {
  A r = acc;
  if constexpr (Op == ReduceOp::Mean) {
    if constexpr (std::is_integral_v<A>) {
      // Divide in 64 bits: the count need not fit the element type (e.g. 200 int8 values).
      using Wide = std::conditional_t<std::is_signed_v<A>, int64_t, uint64_t>;
      r = count == 0 ? A(0) : static_cast<A>(static_cast<Wide>(acc) / static_cast<Wide>(count));
    } else {
      r = acc / static_cast<A>(count);
    }
  } else if constexpr (Op == ReduceOp::L2) {
    r = std::sqrt(acc);
  } else if constexpr (Op == ReduceOp::LogSum) {
    r = std::log(acc);
  } else if constexpr (Op == ReduceOp::LogSumExp) {
    // An infinite maximum (or an empty reduction, which leaves it at -inf) is the result
    // itself; x - max would be NaN there.
    r = std::isinf(shift) ? shift : std::log(acc) + shift;
  }
  if constexpr (std::is_integral_v<T> && std::is_floating_point_v<A>) {
    // log(0) and friends have no integer value; avoid the undefined conversion.
    if (std::isnan(r)) return T(0);
    if (std::isinf(r))
      return r < 0 ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  if constexpr (is_small_float_v<T>) {
    return static_cast<T>(static_cast<float>(r));
  } else {
    return static_cast<T>(r);
  }
}

// --- the coalesced walk ---------------------------------------------------------------------

struct Coalesced {
  Shape size;     // extents, outermost first, none equal to 1
  Shape reduced;  // 1 where the dimension is reduced
  Shape in_stride;
  Shape out_stride;  // 0 on reduced dimensions
  int64_t reduce_count = 1;
};

Coalesced coalesce(const Shape& shape, const Shape& mask) {
  Coalesced c;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask[d]) c.reduce_count *= shape[d];
    if (shape[d] == 1) continue;
    if (!c.size.empty() && c.reduced.back() == mask[d]) {
      c.size.back() *= shape[d];
    } else {
      c.size.push_back(shape[d]);
      c.reduced.push_back(mask[d]);
    }
  }
  const size_t n = c.size.size();
  c.in_stride.resize(n);
  c.out_stride.resize(n);
  int64_t in = 1, out = 1;
  for (size_t d = n; d-- > 0;) {
    c.in_stride[d] = in;
    in *= c.size[d];
    c.out_stride[d] = c.reduced[d] ? 0 : out;
    if (!c.reduced[d]) out *= c.size[d];
  }
  return c;
}

// Accumulates the input block at `x` (dimensions level.. of the view) into acc (and reads the
// LogSumExp shift from `shift`, which moves with acc).
template <class T, ReduceOp Op, bool kFirstPass>
void walk(const Coalesced& c, size_t level, const T* x, Acc<T, Op>* acc, const Acc<T, Op>* shift) {
  using A = Acc<T, Op>;
  // kFirstPass of LogSumExp computes the maximum.
  constexpr ReduceOp kOp = (Op == ReduceOp::LogSumExp && kFirstPass) ? ReduceOp::Max : Op;
  const int64_t n = c.size[level];
  if (level + 1 == c.size.size()) {
    if (c.reduced[level]) {
      const A s = shift ? shift[0] : A(0);
      // Several independent partial results: shorter dependency chains and better rounding
      // for long float sums.
      A part[4] = {acc[0], identity_value<A, kOp>(), identity_value<A, kOp>(),
                   identity_value<A, kOp>()};
      int64_t i = 0;
      for (; i + 4 <= n; i += 4) {
        for (int j = 0; j < 4; ++j)
          part[j] = combine<A, kOp>(part[j], map_value<A, kOp>(x[i + j], s));
      }
      for (; i < n; ++i) part[0] = combine<A, kOp>(part[0], map_value<A, kOp>(x[i], s));
      acc[0] =
          combine<A, kOp>(combine<A, kOp>(part[0], part[1]), combine<A, kOp>(part[2], part[3]));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        acc[i] = combine<A, kOp>(acc[i], map_value<A, kOp>(x[i], shift ? shift[i] : A(0)));
      }
    }
    return;
  }
  const int64_t in_stride = c.in_stride[level], out_stride = c.out_stride[level];
  for (int64_t i = 0; i < n; ++i) {
    walk<T, Op, kFirstPass>(c, level + 1, x + i * in_stride, acc + i * out_stride,
                            shift ? shift + i * out_stride : nullptr);
  }
}

// One pass over the whole input, split over the job system where the layout allows it.
template <class T, ReduceOp Op, bool kFirstPass>
void accumulate(const Coalesced& c, const T* x, Acc<T, Op>* acc, const Acc<T, Op>* shift,
                int64_t total) {
  using A = Acc<T, Op>;
  if (c.size.empty()) {  // every extent is 1: a single element
    constexpr ReduceOp kOp = (Op == ReduceOp::LogSumExp && kFirstPass) ? ReduceOp::Max : Op;
    acc[0] = combine<A, kOp>(acc[0], map_value<A, kOp>(x[0], shift ? shift[0] : A(0)));
    return;
  }
  constexpr int64_t kGrainElements = 32768;
  const int64_t slice = total / c.size[0];  // input elements per index of the first dimension
  if (!c.reduced[0] && total >= 2 * kGrainElements) {
    const int64_t in_stride = c.in_stride[0], out_stride = c.out_stride[0];
    parallel_for(
        c.size[0], std::max<int64_t>(1, kGrainElements / slice), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            if (c.size.size() == 1) {
              constexpr ReduceOp kOp =
                  (Op == ReduceOp::LogSumExp && kFirstPass) ? ReduceOp::Max : Op;
              acc[i] = combine<A, kOp>(acc[i], map_value<A, kOp>(x[i], shift ? shift[i] : A(0)));
            } else {
              walk<T, Op, kFirstPass>(c, 1, x + i * in_stride, acc + i * out_stride,
                                      shift ? shift + i * out_stride : nullptr);
            }
          }
        });
    return;
  }
  if (c.reduced[0] && c.size.size() == 2 && total >= 2 * kGrainElements) {
    // [R, K]: split the kept columns; each chunk sweeps all R rows over its columns.
    const int64_t rows = c.size[0], cols = c.size[1];
    parallel_for(cols, std::max<int64_t>(64, kGrainElements / rows), [&](int64_t b, int64_t e) {
      constexpr ReduceOp kOp = (Op == ReduceOp::LogSumExp && kFirstPass) ? ReduceOp::Max : Op;
      for (int64_t r = 0; r < rows; ++r) {
        const T* row = x + r * cols;
        for (int64_t j = b; j < e; ++j) {
          acc[j] = combine<A, kOp>(acc[j], map_value<A, kOp>(row[j], shift ? shift[j] : A(0)));
        }
      }
    });
    return;
  }
  walk<T, Op, kFirstPass>(c, 0, x, acc, shift);
}

// Scratch that lives as long as its thread and only grows, so steady-state runs do not
// allocate.
template <class A>
A* scratch(size_t which, int64_t count) {
  thread_local std::vector<A> buffers[2];
  std::vector<A>& b = buffers[which];
  if (b.size() < static_cast<size_t>(count)) b.resize(static_cast<size_t>(count));
  return b.data();
}

template <class T, ReduceOp Op>
void reduce_typed(const Tensor& x, const Shape& mask, Tensor& y) {
  using A = Acc<T, Op>;
  const int64_t out_count = y.element_count();
  if (out_count == 0) return;
  const Coalesced c = coalesce(x.shape(), mask);
  const int64_t total = x.element_count();
  const T* in = x.data<T>();
  T* out = y.mutable_data<T>();
  A* acc;
  if constexpr (std::is_same_v<A, T>) {
    acc = out;
  } else {
    acc = scratch<A>(0, out_count);
  }
  A* shift = nullptr;
  if constexpr (Op == ReduceOp::LogSumExp) {
    shift = scratch<A>(1, out_count);
    std::fill_n(shift, out_count, identity_value<A, ReduceOp::Max>());
    if (total > 0) accumulate<T, Op, true>(c, in, shift, nullptr, total);
  }
  std::fill_n(acc, out_count, identity_value<A, Op>());
  if (total > 0) {
    if constexpr (Op == ReduceOp::LogSumExp) {
      // Where the maximum is infinite, exp(x - max) is NaN or 0; finalize handles those
      // outputs from the maximum alone, so the sum there does not matter.
      accumulate<T, Op, false>(c, in, acc, shift, total);
    } else {
      accumulate<T, Op, false>(c, in, acc, nullptr, total);
    }
  }
  for (int64_t i = 0; i < out_count; ++i) {
    out[i] = finalize<T, Op, A>(acc[i], c.reduce_count, shift ? shift[i] : A(0));
  }
}

template <class T>
constexpr bool reducible_v = (is_float_like_v<T> || is_plain_int_v<T>)&&!is_small_int_v<T>;

template <ReduceOp Op>
void reduce_dispatch(OpContext& ctx, const Tensor& x, const Shape& mask, Tensor& y) {
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min) {
        // Bool max/min are any/all.
        const Coalesced c = coalesce(x.shape(), mask);
        const int64_t out_count = y.element_count();
        if (out_count == 0) return;
        const bool* in = x.data<bool>();
        bool* out = y.mutable_data<bool>();
        std::fill_n(out, out_count, Op == ReduceOp::Min);
        // Small and rare: a plain odometer walk is enough.
        Shape index;
        index.resize(c.size.size(), 0);
        const int64_t total = x.element_count();
        int64_t out_off = 0;
        for (int64_t i = 0; i < total; ++i) {
          out[out_off] = Op == ReduceOp::Max ? (out[out_off] || in[i]) : (out[out_off] && in[i]);
          for (size_t d = c.size.size(); d-- > 0;) {
            out_off += c.out_stride[d];
            if (++index[d] < c.size[d]) break;
            out_off -= c.out_stride[d] * c.size[d];
            index[d] = 0;
          }
        }
        return;
      }
    }
    if constexpr (reducible_v<T>) {
      reduce_typed<T, Op>(x, mask, y);
    } else {
      ctx.fail("does not support " + std::string(dtype_name(x.dtype())) + " inputs");
    }
  });
}

void run_reduce(OpContext& ctx, ReduceOp op, const Tensor& x, const Shape& mask, Tensor& y) {
  switch (op) {
    case ReduceOp::Sum:
      return reduce_dispatch<ReduceOp::Sum>(ctx, x, mask, y);
    case ReduceOp::Mean:
      return reduce_dispatch<ReduceOp::Mean>(ctx, x, mask, y);
    case ReduceOp::Max:
      return reduce_dispatch<ReduceOp::Max>(ctx, x, mask, y);
    case ReduceOp::Min:
      return reduce_dispatch<ReduceOp::Min>(ctx, x, mask, y);
    case ReduceOp::Prod:
      return reduce_dispatch<ReduceOp::Prod>(ctx, x, mask, y);
    case ReduceOp::L1:
      return reduce_dispatch<ReduceOp::L1>(ctx, x, mask, y);
    case ReduceOp::L2:
      return reduce_dispatch<ReduceOp::L2>(ctx, x, mask, y);
    case ReduceOp::LogSum:
      return reduce_dispatch<ReduceOp::LogSum>(ctx, x, mask, y);
    case ReduceOp::LogSumExp:
      return reduce_dispatch<ReduceOp::LogSumExp>(ctx, x, mask, y);
    case ReduceOp::SumSquare:
      return reduce_dispatch<ReduceOp::SumSquare>(ctx, x, mask, y);
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      break;  // make_arg_reduce
  }
  ctx.fail("internal error: " + std::string(op_type_of(op)) + " is not a Reduce op");
}

// Reads an axes tensor (int64, or int32 from lenient exporters) without allocating.
Shape read_axes(const OpContext& ctx, const Tensor& t) {
  Shape axes;
  if (t.rank() > 1) ctx.fail("axes must be a 1-D tensor, got shape " + t.shape().to_string());
  const int64_t n = t.element_count();
  if (t.dtype() == DataType::Int64) {
    const int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) axes.push_back(p[i]);
  } else if (t.dtype() == DataType::Int32) {
    const int32_t* p = t.data<int32_t>();
    for (int64_t i = 0; i < n; ++i) axes.push_back(p[i]);
  } else {
    ctx.fail("axes must be int64, got " + std::string(dtype_name(t.dtype())));
  }
  return axes;
}

CpuKernel make_reduce(const NodeInfo& info, ReduceOp op) {
  const ReduceAttrs attrs = parse_reduce_attrs(info, op);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    Shape axes;  // the axes input's values, inline for the usual ranks
    const bool axes_given = attrs.axes_from_input && ctx.has_input(1);
    if (axes_given) axes = read_axes(ctx, ctx.input(1));
    const ReducePlan plan = resolve_reduce(
        attrs, x.shape(),
        axes_given ? std::optional(std::span<const int64_t>(axes.begin(), axes.end()))
                   : std::nullopt,
        ctx.node());
    if (!plan.reduces_any() && is_identity_on_one(attrs.op) && x.dtype() != DataType::String) {
      ctx.set_output(0, x);
      return;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), plan.out);
    run_reduce(ctx, attrs.op, x, plan.reduced, y);
  };
}

// --- ArgMax / ArgMin --------------------------------------------------------------------------

template <class T, bool kMax>
void arg_reduce(const T* x, int64_t* y, int64_t outer, int64_t n, int64_t inner, bool last) {
  auto value = [](T v) {
    if constexpr (is_small_float_v<T>) {
      return static_cast<float>(v);
    } else {
      return v;
    }
  };
  // `better` is strict for the first index of ties and non-strict for the last.
  auto better = [last](auto candidate, auto best) {
    if constexpr (kMax) {
      return last ? candidate >= best : candidate > best;
    } else {
      return last ? candidate <= best : candidate < best;
    }
  };
  const int64_t lines = outer * inner;
  parallel_for(lines, std::max<int64_t>(1, 16384 / n), [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t o = line / inner, i = line % inner;
      const T* p = x + o * n * inner + i;
      auto best = value(p[0]);
      int64_t arg = 0;
      for (int64_t k = 1; k < n; ++k) {
        const auto v = value(p[k * inner]);
        if (better(v, best)) {
          best = v;
          arg = k;
        }
      }
      y[line] = arg;
    }
  });
}

CpuKernel make_arg_reduce(const NodeInfo& info, ReduceOp op) {
  const ReduceAttrs attrs = parse_reduce_attrs(info, op);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& shape = x.shape();
    const ReducePlan plan = resolve_reduce(attrs, shape, std::nullopt, ctx.node());
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t a = attrs.axes[0] < 0 ? attrs.axes[0] + rank : attrs.axes[0];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= shape[d];
    for (int64_t d = a + 1; d < rank; ++d) inner *= shape[d];
    const int64_t n = shape[a];
    if (n == 0 && outer * inner != 0) ctx.fail("cannot take the arg-extremum of an empty axis");
    Tensor& y = ctx.allocate_output(0, DataType::Int64, plan.out);
    if (outer * inner == 0) return;
    int64_t* out = y.mutable_data<int64_t>();
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (reducible_v<T> || std::is_same_v<T, bool>) {
        if (attrs.op == ReduceOp::ArgMax) {
          arg_reduce<T, true>(x.data<T>(), out, outer, n, inner, attrs.select_last_index);
        } else {
          arg_reduce<T, false>(x.data<T>(), out, outer, n, inner, attrs.select_last_index);
        }
      } else {
        ctx.fail("does not support " + std::string(dtype_name(x.dtype())) + " inputs");
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(reduce);
void register_reduce_ops(OpRegistry& registry) {
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod, ReduceOp::L1,
        ReduceOp::L2, ReduceOp::SumSquare, ReduceOp::LogSum, ReduceOp::LogSumExp}) {
    registry.add(op_type_of(op), [op](const NodeInfo& info) { return make_reduce(info, op); });
  }
  for (ReduceOp op : {ReduceOp::ArgMax, ReduceOp::ArgMin}) {
    registry.add(op_type_of(op), [op](const NodeInfo& info) { return make_arg_reduce(info, op); });
  }
}

}  // namespace kiln
