// Helpers for kernels that move elements without looking at their meaning (Expand, Tile, Pad,
// Trilu, ...): such kernels only need each element's size, so they are instantiated once per
// storage width instead of once per element type.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "kiln/error.h"
#include "kiln/tensor.h"

namespace kiln {

// A 16-byte element (complex128) moved as raw bytes.
struct Storage16 {
  uint64_t lo, hi;
};

// Calls f.template operator()<S>() with S a trivially copyable type of the same size as one
// element of `t`, or std::string for String tensors (whose elements must be copied by
// assignment).
template <class F>
decltype(auto) visit_storage(DataType t, F&& f) {
  if (t == DataType::String) return f.template operator()<std::string>();
  switch (t == DataType::Undefined ? 0 : dtype_size(t)) {
    case 1:
      return f.template operator()<uint8_t>();
    case 2:
      return f.template operator()<uint16_t>();
    case 4:
      return f.template operator()<uint32_t>();
    case 8:
      return f.template operator()<uint64_t>();
    case 16:
      return f.template operator()<Storage16>();
    default:
      break;
  }
  throw Error("unsupported element type " + std::string(dtype_name(t)));
}

// The element of `t` at `index`, reinterpreted as the storage type S chosen by visit_storage.
template <class S>
S storage_element(const Tensor& t, int64_t index) {
  if constexpr (std::is_same_v<S, std::string>) {
    return t.data<std::string>()[index];
  } else {
    S s;
    std::memcpy(&s, static_cast<const char*>(t.raw_data()) + index * sizeof(S), sizeof(S));
    return s;
  }
}

// A numeric value converted to element type T (for values given as float attributes or
// computed in double). Strings have no numeric value.
template <class T>
T from_double(double v) {
  if constexpr (is_small_float_v<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (is_small_int_v<T>) {
    return T(static_cast<int>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (is_complex_v<T>) {
    return T(static_cast<typename T::value_type>(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    throw Error("a string element has no numeric value");
  } else {
    return static_cast<T>(v);
  }
}

// `v` converted to `dtype` and returned as that dtype's storage type S (same size).
template <class S>
S storage_from_double(DataType dtype, double v) {
  if constexpr (std::is_same_v<S, std::string>) {
    (void)dtype;
    (void)v;
    return std::string();
  } else {
    S s{};
    visit_dtype(dtype, [&]<class T>() {
      if constexpr (!std::is_same_v<T, std::string> && sizeof(T) == sizeof(S)) {
        const T value = from_double<T>(v);
        std::memcpy(&s, &value, sizeof(S));
      }
    });
    return s;
  }
}

// Copies an int32/int64 tensor's values into `out`; false (and `out` untouched) for any
// other dtype, so callers can report the error in their own terms.
inline bool copy_int_list(const Tensor& t, Shape& out) {
  if (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32) return false;
  const int64_t n = t.element_count();
  out.resize(static_cast<size_t>(n));
  if (t.dtype() == DataType::Int64) {
    const int64_t* p = t.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  } else {
    const int32_t* p = t.data<int32_t>();
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  }
  return true;
}

// Reads a 1-D (or scalar) int32/int64 tensor into `out` without touching the heap for up to
// Shape::kInlineRank values. Throws kiln::Error (prefixed with `where`) for other dtypes.
inline void read_int_list(const Tensor& t, Shape& out, const std::string& where) {
  if (!copy_int_list(t, out)) {
    throw Error(where + ": expected an int32 or int64 tensor, got " +
                std::string(dtype_name(t.dtype())));
  }
}

// Walks the rows (all dimensions but the last) of a row-major shape: seek once, then step.
class RowCursor {
 public:
  explicit RowCursor(const Shape& shape) : shape_(shape) {
    coord_.resize(shape.size() > 0 ? shape.size() - 1 : 0, 0);
  }
  void seek(int64_t row) {
    for (size_t d = coord_.size(); d-- > 0;) {
      coord_[d] = row % shape_[d];
      row /= shape_[d];
    }
  }
  void next() {
    for (size_t d = coord_.size(); d-- > 0;) {
      if (++coord_[d] < shape_[d]) return;
      coord_[d] = 0;
    }
  }
  const Shape& coord() const { return coord_; }

 private:
  const Shape& shape_;
  Shape coord_;
};

}  // namespace kiln
