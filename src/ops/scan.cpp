// Ops that scan along an axis or over the whole tensor: CumSum, CumProd, TopK, NonZero.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/cumulative.h"
#include "opdefs/top_k.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

// The tensor seen as [outer, axis, inner] around `axis`.
struct AxisSplit {
  int64_t outer = 1, extent = 1, inner = 1;
};

AxisSplit split_at(const Shape& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t d = 0; d < axis; ++d) s.outer *= shape[d];
  s.extent = shape.empty() ? 1 : shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

// ---------------------------------------------------------------------------------------------
// CumSum and CumProd: one running total along the axis, started at the operation's identity.

enum class Accumulation { kSum, kProduct };

// The type totals are kept in: float for the 16-bit floats, and an unsigned type of at least
// 32 bits for integers, so that overflow wraps (modulo the element width, once converted back)
// instead of being undefined.
template <class T>
struct ScanAccumulator {
  using type = T;
};
template <class T>
requires is_plain_int_v<T>
struct ScanAccumulator<T> {
  using type = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
};
template <>
struct ScanAccumulator<Float16> {
  using type = float;
};
template <>
struct ScanAccumulator<BFloat16> {
  using type = float;
};
template <class T>
using ScanAcc = typename ScanAccumulator<T>::type;

template <Accumulation Op, class T>
void accumulate_along_axis(const T* in, T* out, const AxisSplit& s, bool exclusive, bool reverse) {
  using Acc = ScanAcc<T>;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(s.extent * s.inner, 1));
  parallel_for(s.outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const T* src = in + o * s.extent * s.inner;
      T* dst = out + o * s.extent * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) {
        Acc total = Op == Accumulation::kSum ? Acc(0) : Acc(1);
        for (int64_t step = 0; step < s.extent; ++step) {
          const int64_t a = reverse ? s.extent - 1 - step : step;
          const Acc v = static_cast<Acc>(src[a * s.inner + i]);
          if (exclusive) dst[a * s.inner + i] = static_cast<T>(total);
          total = static_cast<Acc>(Op == Accumulation::kSum ? total + v : total * v);
          if (!exclusive) dst[a * s.inner + i] = static_cast<T>(total);
        }
      }
    }
  });
}

template <Accumulation Op>
CpuKernel make_accumulation(const NodeInfo& info) {
  const CumulativeAttrs attrs = parse_cumulative_attrs(info);
  const std::string op = info.op_type();
  return [attrs, op](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.element_count() != 1 || axis_t.rank() > 1) {
      ctx.fail("axis must be a scalar, got shape " + axis_t.shape().to_string());
    }
    Shape axis_values;
    read_int_list(axis_t, axis_values, op + " axis");
    const int64_t rank = static_cast<int64_t>(x.rank());
    if (rank == 0) ctx.fail("input must have rank >= 1");
    const int64_t axis = normalize_axis(axis_values[0], rank, op);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.element_count() == 0) return;
    const AxisSplit s = split_at(x.shape(), axis);
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_plain_int_v<T> || std::is_floating_point_v<T> ||
                    std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        accumulate_along_axis<Op>(x.data<T>(), y.mutable_data<T>(), s, attrs.exclusive,
                                  attrs.reverse);
      } else {
        ctx.fail("unsupported type " + type_name(x.dtype()));
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// TopK

// Orders candidate indices: larger (or smaller) values first, equal values by lower index.
// NaN counts as larger than every number, which keeps the order a strict weak ordering (and
// matches numpy's and PyTorch's placement of NaN).
template <class T, bool Largest>
struct TopKOrder {
  const T* data;
  int64_t stride;
  bool operator()(int64_t a, int64_t b) const {
    const auto va = value(a), vb = value(b);
    if constexpr (is_float_like_v<T>) {
      const bool na = std::isnan(va), nb = std::isnan(vb);
      if (na || nb) {
        if (na && nb) return a < b;
        return Largest ? na : nb;
      }
    }
    if (va != vb) return Largest ? va > vb : va < vb;
    return a < b;
  }
  auto value(int64_t i) const {
    if constexpr (is_small_float_v<T>) {
      return static_cast<float>(data[i * stride]);
    } else {
      return data[i * stride];
    }
  }
};

template <class T, bool Largest>
void top_k(const T* in, T* values, int64_t* indices, const AxisSplit& s, int64_t k, bool sorted) {
  const int64_t lines = s.outer * s.inner;
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(s.extent, 1));
  parallel_for(lines, grain, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(static_cast<size_t>(s.extent));
    for (int64_t line = begin; line < end; ++line) {
      const int64_t o = line / s.inner, i = line % s.inner;
      const TopKOrder<T, Largest> cmp{in + o * s.extent * s.inner + i, s.inner};
      std::iota(order.begin(), order.end(), int64_t{0});
      if (k < s.extent) {
        std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), cmp);
      }
      // With sorted == 0 the order is unspecified; ascending indices make it deterministic.
      if (sorted) {
        std::sort(order.begin(), order.begin() + k, cmp);
      } else {
        std::sort(order.begin(), order.begin() + k);
      }
      T* vdst = values + o * k * s.inner + i;
      int64_t* idst = indices + o * k * s.inner + i;
      for (int64_t j = 0; j < k; ++j) {
        vdst[j * s.inner] = cmp.data[order[j] * s.inner];
        idst[j * s.inner] = order[j];
      }
    }
  });
}

CpuKernel make_top_k(const NodeInfo& info) {
  const TopKAttrs attrs = parse_top_k_attrs(info);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const TopKPlan plan = resolve_top_k(NodeInputs{ctx.node(), ctx.inputs()}, attrs);
    const int64_t axis = plan.axis, k = plan.k;
    const AxisSplit s = split_at(x.shape(), axis);
    Shape out_shape = x.shape();
    out_shape[axis] = k;
    Tensor& values = ctx.allocate_output(0, x.dtype(), out_shape);
    Tensor& indices = ctx.allocate_output(1, DataType::Int64, out_shape);
    if (k == 0 || s.outer * s.inner == 0) return;
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_plain_int_v<T> || is_float_like_v<T>) {
        if (attrs.largest) {
          top_k<T, true>(x.data<T>(), values.mutable_data<T>(), indices.mutable_data<int64_t>(), s,
                         k, attrs.sorted);
        } else {
          top_k<T, false>(x.data<T>(), values.mutable_data<T>(), indices.mutable_data<int64_t>(), s,
                          k, attrs.sorted);
        }
      } else {
        ctx.fail("unsupported type " + type_name(x.dtype()));
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// NonZero

template <class T>
bool is_nonzero(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return !v.empty();
  } else if constexpr (is_complex_v<T>) {
    return v != T{};
  } else if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else {
    return to_double(v) != 0;
  }
}

CpuKernel make_non_zero(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    // A scalar is treated as a 1-D tensor of one element (as numpy and ONNX Runtime do).
    const Shape shape = x.rank() == 0 ? Shape{1} : x.shape();
    const size_t rank = shape.size();
    const int64_t n = x.element_count();
    visit_dtype(x.dtype(), [&]<class T>() {
      const T* p = x.data<T>();
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += is_nonzero(p[i]) ? 1 : 0;
      Tensor& y = ctx.allocate_output(0, DataType::Int64, Shape{static_cast<int64_t>(rank), count});
      int64_t* out = y.mutable_data<int64_t>();
      Shape coord;
      coord.resize(rank, 0);
      int64_t column = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (is_nonzero(p[i])) {
          for (size_t d = 0; d < rank; ++d) out[d * count + column] = coord[d];
          ++column;
        }
        for (size_t d = rank; d-- > 0;) {
          if (++coord[d] < shape[d]) break;
          coord[d] = 0;
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(scan);
void register_scan_ops(OpRegistry& registry) {
  registry.add("CumSum", make_accumulation<Accumulation::kSum>);
  registry.add("CumProd", make_accumulation<Accumulation::kProduct>);
  registry.add("TopK", make_top_k);
  registry.add("NonZero", make_non_zero);
}

}  // namespace kiln
