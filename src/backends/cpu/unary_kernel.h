// A builder for "y = f(x) element-wise, same type and shape" kernels, shared by the unary math
// and activation families: dtype dispatch (storage-only floats compute in float), rejection
// of types the op does not define, an optional vectorised float32 path, and splitting of large
// tensors over the job system.
#pragma once

#include <string>
#include <type_traits>

#include "backends/cpu/elementwise_map.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_context.h"
#include "kernels/op_registry.h"

namespace kiln::cpu {

// Which element types an op accepts (the ONNX type constraint, roughly).
enum class Accepts {
  Floats,               // float16/32/64, bfloat16 (and the float8 types, computed in float)
  FloatsAndSignedInts,  // ... and int8..int64
  FloatsAndInts,        // ... and uint8..uint64
};

template <Accepts kAccepts, class T>
inline constexpr bool accepts_v = is_float_like_v<T> ||
                                  (kAccepts == Accepts::FloatsAndInts && is_plain_int_v<T>) ||
                                  (kAccepts == Accepts::FloatsAndSignedInts && is_plain_int_v<T> &&
                                   std::is_signed_v<T>);

// A vectorised float32 loop: out[i] = f(in[i]) for i < n (in and out may alias).
using VectorF32 = void (*)(const float* in, float* out, int64_t n);

[[noreturn]] inline void fail_unsupported_type(const OpContext& ctx, DataType t) {
  ctx.fail("unsupported element type " + std::string(dtype_name(t)));
}

// f is called with a compute_t<T> value and its result converted back to T.
template <Accepts kAccepts, class F>
CpuKernel unary_kernel(F f, int64_t grain = kCostlyGrain, VectorF32 vector_f32 = nullptr) {
  return [f, grain, vector_f32](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t n = x.element_count();
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (accepts_v<kAccepts, T>) {
        Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
        const T* in = x.data<T>();
        T* out = y.mutable_data<T>();
        if constexpr (std::is_same_v<T, float>) {
          if (vector_f32 != nullptr) {
            split_range(n, grain, [&](int64_t begin, int64_t end) {
              vector_f32(in + begin, out + begin, end - begin);
            });
            return;
          }
        }
        using C = compute_t<T>;
        map_elements(in, out, n, grain, [&f](T v) { return static_cast<T>(f(static_cast<C>(v))); });
      } else {
        fail_unsupported_type(ctx, x.dtype());
      }
    });
  };
}

// Registers an attribute-free element-wise op.
template <Accepts kAccepts, class F>
void add_unary(OpRegistry& registry, const char* op_type, F f, int64_t grain = kCostlyGrain,
               VectorF32 vector_f32 = nullptr) {
  registry.add(op_type, [f, grain, vector_f32](const NodeInfo&) -> CpuKernel {
    return unary_kernel<kAccepts>(f, grain, vector_f32);
  });
}

}  // namespace kiln::cpu
