// Helpers shared by the signal ops: scalar inputs and the float types the transforms accept
// (their attributes and sizes are the definition's, opdefs/signal.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/dtype_dispatch.h"
#include "kernels/op_context.h"
#include "kernels/op_registry.h"
#include "kiln/tensor.h"
#include "opdefs/signal.h"

namespace kiln {

// The value of input `index`, a scalar or one-element int32/int64 tensor; ctx.fail naming
// `what` otherwise.
int64_t scalar_int_input(const OpContext& ctx, size_t index, const char* what);

// float16, float, double, bfloat16: the element types of DFT and STFT signals.
inline bool is_signal_float_type(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

// Calls f.template operator()<T>() with T the element type of a signal float type `t`;
// ctx.fail naming `what` for any other type.
template <class F>
void visit_signal_float(const OpContext& ctx, DataType t, const char* what, F&& f) {
  if (!is_signal_float_type(t)) {
    ctx.fail(std::string(what) + " must be float16, float, double or bfloat16, got " +
             std::string(dtype_name(t)));
  }
  visit_dtype(t, [&]<class T>() {
    if constexpr (is_float_like_v<T>) f.template operator()<T>();
  });
}

// Writes `values` (computed in double) into `out`, converted to its element type, which must be
// one output_datatype_attr accepts. Integer types truncate toward zero, as a cast does.
void store_values(Tensor& out, std::span<const double> values);

}  // namespace kiln
