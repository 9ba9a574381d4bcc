// The CPU kernels of Softmax, LogSoftmax and Hardmax (definition: opdefs/softmax.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "backends/cpu/softmax_kernel.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/softmax.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// The type arithmetic happens in: float for float and the 16-bit floats, double for double.
template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Any supported float type, one (outer, inner) line at a time; the float32 softmax takes the
// vectorised kernel instead.
template <class T>
void softmax_reference(const T* x, T* y, const SoftmaxLines& v, SoftmaxOp kind) {
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
      if (kind == SoftmaxOp::Hardmax) {
        for (int64_t k = 0; k < v.n; ++k) out[k * s] = static_cast<T>(C(k == arg ? 1 : 0));
        continue;
      }
      C sum = 0;
      for (int64_t k = 0; k < v.n; ++k) sum += std::exp(static_cast<C>(in[k * s]) - max);
      if (kind == SoftmaxOp::LogSoftmax) {
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

CpuKernel make_softmax(const NodeInfo& info, SoftmaxOp kind) {
  const SoftmaxAttrs attrs = parse_softmax_attrs(info, kind);
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DataType dtype = x.dtype();
    if (dtype != DataType::Float32 && dtype != DataType::Float64 && dtype != DataType::Float16 &&
        dtype != DataType::BFloat16) {
      ctx.fail("expects a float16, bfloat16, float32 or float64 input, got " +
               std::string(dtype_name(dtype)));
    }
    const SoftmaxLines v = resolve_softmax(attrs, x.shape(), ctx.node());
    Tensor& y = ctx.allocate_output(0, dtype, x.shape());
    if (x.element_count() == 0) return;
    if (dtype == DataType::Float32 && kind != SoftmaxOp::Hardmax) {
      cpu::softmax_f32(x.data<float>(), y.mutable_data<float>(), v.outer, v.n, v.inner,
                       kind == SoftmaxOp::LogSoftmax);
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

KILN_CPU_OPS(softmax);
void register_softmax_ops(OpRegistry& registry) {
  registry.add("Softmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxOp::Softmax); });
  registry.add("LogSoftmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxOp::LogSoftmax); });
  registry.add("Hardmax",
               [](const NodeInfo& info) { return make_softmax(info, SoftmaxOp::Hardmax); });
}

}  // namespace kiln
