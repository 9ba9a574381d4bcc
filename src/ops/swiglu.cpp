// SwiGLU (opset 28): y = Swish(a, alpha) * b = a * sigmoid(alpha * a) * b, the gated linear
// unit of transformer feed-forward blocks; a and b broadcast against each other (numpy rules).
#include <cmath>
#include <string>
#include <type_traits>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
T swiglu_one(T a, T b, Compute<T> alpha) {
  using C = Compute<T>;
  const C x = static_cast<C>(a);
  const C gate = x / (C(1) + std::exp(-alpha * x));
  const C y = gate * static_cast<C>(b);
  if constexpr (is_small_float_v<T>) {
    return T(static_cast<float>(y));
  } else {
    return static_cast<T>(y);
  }
}

CpuKernel make_swiglu(const NodeInfo& info) {
  const float alpha = info.attr_float("alpha", 1.0f);
  return [=](OpContext& ctx) {
    const Tensor &a = ctx.input(0), &b = ctx.input(1);
    attn::require_float(ctx, a, "a");
    if (b.dtype() != a.dtype()) ctx.fail("a and b must have the same element type");
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), ctx.node().describe());
    Tensor& y = ctx.allocate_output(0, a.dtype(), shape);
    visit_dtype(a.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        const T* pa = a.data<T>();
        const T* pb = b.data<T>();
        T* py = y.mutable_data<T>();
        const auto c_alpha = static_cast<Compute<T>>(alpha);
        if (a.shape() == b.shape()) {
          parallel_for(shape.element_count(), 16384, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) py[i] = swiglu_one(pa[i], pb[i], c_alpha);
          });
          return;
        }
        for_each_broadcast(shape, broadcast_strides(a.shape(), shape),
                           broadcast_strides(b.shape(), shape),
                           [&](int64_t o, int64_t ia, int64_t ib) {
                             py[o] = swiglu_one(pa[ia], pb[ib], c_alpha);
                           });
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(swiglu);
void register_swiglu_ops(OpRegistry& registry) { registry.add("SwiGLU", make_swiglu); }

}  // namespace kiln
