// Small helpers shared by the vision ops: the float element types they compute on, and moving
// values of those types through double, where the arithmetic happens.
#pragma once

#include <string>
#include <type_traits>

#include "kernels/op_context.h"
#include "kiln/tensor.h"
#include "ops/op_utils.h"

namespace kiln::vision {

template <class T>
double load(const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(v);
  } else {
    return static_cast<double>(static_cast<float>(v));
  }
}

template <class T>
T store(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

// The scalar value of a 0-D or one-element tensor of any float type, or `fallback` when the
// input is absent or empty.
inline double optional_float_scalar(const OpContext& ctx, size_t index, const char* what,
                                    double fallback) {
  if (!ctx.has_input(index) || ctx.input(index).element_count() == 0) return fallback;
  const Tensor& t = ctx.input(index);
  if (t.element_count() != 1) {
    ctx.fail(std::string(what) + " must hold one value, got shape " + t.shape().to_string());
  }
  double v = 0;
  visit_float(ctx, t.dtype(), what, [&]<class T>() { v = load(t.data<T>()[0]); });
  return v;
}

// Fails unless `shape` (an output shape read from an input) has a representable element count;
// its product would otherwise wrap around and describe a bogus tensor.
inline void check_shape_size(const OpContext& ctx, const Shape& shape, const char* what) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
      ctx.fail(std::string(what) + " " + shape.to_string() + " is not a valid tensor shape");
    }
  }
}

}  // namespace kiln::vision
