// Integer arithmetic that wraps as two's complement hardware does, as ONNX's integer ops and
// ONNX Runtime's kernels do: computed in unsigned arithmetic at least as wide as unsigned int,
// since signed overflow (and the promotion of a narrow unsigned product to int) is undefined
// behaviour. Other types compute plainly.
#pragma once

#include <type_traits>

#include "core/dtype_dispatch.h"

namespace kiln {

// The unsigned type in which T's arithmetic wraps (at least unsigned int, so that nothing
// promotes back to a signed int).
template <class T>
using wrap_t = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

template <class T>
inline T wrapping_add(T a, T b) {
  if constexpr (is_plain_int_v<T>) {
    return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}

template <class T>
inline T wrapping_mul(T a, T b) {
  if constexpr (is_plain_int_v<T>) {
    return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

// Negation that wraps for the most negative integer instead of overflowing.
template <class T>
inline T wrapping_neg(T v) {
  if constexpr (is_plain_int_v<T>) {
    return static_cast<T>(wrap_t<T>{0} - static_cast<wrap_t<T>>(v));
  } else {
    return -v;
  }
}

}  // namespace kiln
