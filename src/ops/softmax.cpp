// Softmax, LogSoftmax and Hardmax.
//
// Two semantics, chosen by opset: before opset 13 the input is flattened to 2-D at `axis`
// (default 1) and the op works on each row of the flattened view; from opset 13 it works along
// the single dimension `axis` (default -1). Both are the same computation over a tensor viewed
// as [outer, n, inner] — the old semantics is simply inner == 1 with n spanning the trailing
// dimensions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "backends/cpu/softmax_kernel.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisView view_at_axis(const OpContext& ctx, const Shape& shape, int64_t axis, bool flatten) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  // Before opset 13 axis == rank is allowed (it flattens to [N, 1]).
  const int64_t upper = flatten ? rank : rank - 1;
  if (axis < -rank || axis > upper) {
    ctx.fail("axis " + std::to_string(axis) + " is out of range for an input of rank " +
             std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  AxisView v;
  for (int64_t d = 0; d < axis; ++d) v.outer *= shape[d];
  if (flatten) {
    for (int64_t d = axis; d < rank; ++d) v.n *= shape[d];
  } else {
    v.n = shape[axis];
    for (int64_t d = axis + 1; d < rank; ++d) v.inner *= shape[d];
  }
  return v;
}

// The type arithmetic happens in: float for float and the 16-bit floats, double for double.
template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Any supported float type, one (outer, inner) line at a time; the float32 softmax takes the
// vectorised kernel instead.
template <class T>
void softmax_reference(const T* x, T* y, const AxisView& v, SoftmaxKind kind) {
  using C = Compute<T>;
  const int64_t lines = v.outer * v.inner;
  const int64_t grain = std::max<int64_t>(1, 8192 / v.n);
  parallel_for(lines, grain, [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t o = line / v.inner, i = line % v.inner;
      const T* in = x + o * v.n * v.inner + i;
      T* out = y + o * v.n * v.inner + i;
      const int64_t s = v.inner;
      // First maximum: Hardmax marks the first occurrence of ties.
      C max = static_cast<C>(in[0]);
      int64_t arg = 0;
      for (int64_t k = 1; k < v.n; ++k) {
        const C value = static_cast<C>(in[k * s]);
        if (value > max) {
          max = value;
          arg = k;
        }
      }
      if (kind == SoftmaxKind::kHardmax) {
        for (int64_t k = 0; k < v.n; ++k) out[k * s] = static_cast<T>(C(k == arg ? 1 : 0));
        continue;
      }
      C sum = 0;
      for (int64_t k = 0; k < v.n; ++k) sum += std::exp(static_cast<C>(in[k * s]) - max);
      if (kind == SoftmaxKind::kLogSoftmax) {
        const C shift = max + std::log(sum);
        for (int64_t k = 0; k < v.n; ++k)
          out[k * s] = static_cast<T>(static_cast<C>(in[k * s]) - shift);
      } else {
        const C inv = C(1) / sum;
        for (int64_t k = 0; k < v.n; ++k) {
          out[k * s] = static_cast<T>(std::exp(static_cast<C>(in[k * s]) - max) * inv);
        }
      }
    }
  });
}

CpuKernel make_softmax(const NodeInfo& info, SoftmaxKind kind) {
  const bool flatten = info.opset() < 13;
  const int64_t axis = info.attr_int("axis", flatten ? 1 : -1);
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DataType dtype = x.dtype();
    if (dtype != DataType::Float32 && dtype != DataType::Float64 && dtype != DataType::Float16 &&
        dtype != DataType::BFloat16) {
      ctx.fail("expects a float16, bfloat16, float32 or float64 input, got " +
               std::string(dtype_name(dtype)));
    }
    const AxisView v = view_at_axis(ctx, x.shape(), axis, flatten);
    Tensor& y = ctx.allocate_output(0, dtype, x.shape());
    if (x.element_count() == 0) return;
    if (dtype == DataType::Float32 && kind != SoftmaxKind::kHardmax) {
      cpu::softmax_f32(x.data<float>(), y.mutable_data<float>(), v.outer, v.n, v.inner,
                       kind == SoftmaxKind::kLogSoftmax);
      return;
    }
    visit_dtype(dtype, [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        softmax_reference<T>(x.data<T>(), y.mutable_data<T>(), v, kind);
      }
    });
  };
}

}  // namespace

void register_softmax_ops(OpRegistry& registry) {
  registry.add("Softmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxKind::kSoftmax); });
  registry.add("LogSoftmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxKind::kLogSoftmax); });
  registry.add("Hardmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxKind::kHardmax); });
}

}  // namespace kiln
