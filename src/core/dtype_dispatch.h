// Turning a runtime DataType into a compile-time element type:
//
//   visit_dtype(t.dtype(), [&]<class T>() { sum<T>(t.data<T>(), n); });
//
// and the small per-type helpers kernels need to treat the storage-only types (Float16,
// Float8..., Int4...) like numbers.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include "kiln/dtype.h"
#include "kiln/error.h"

namespace kiln {

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

// The storage-only float types that compute through float.
template <class T>
inline constexpr bool is_small_float_v =
    std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16> || std::is_same_v<T, Float8E4M3FN> ||
    std::is_same_v<T, Float8E4M3FNUZ> || std::is_same_v<T, Float8E5M2> ||
    std::is_same_v<T, Float8E5M2FNUZ> || std::is_same_v<T, Float8E8M0> ||
    std::is_same_v<T, Float4E2M1>;
template <class T>
inline constexpr bool is_small_int_v = std::is_same_v<T, Int4> || std::is_same_v<T, UInt4> ||
                                       std::is_same_v<T, Int2> || std::is_same_v<T, UInt2>;
// float, double and the small float types.
template <class T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_small_float_v<T>;
// Built-in integers, excluding bool.
template <class T>
inline constexpr bool is_plain_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
double to_double(const T& v) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<float>(v);
  } else if constexpr (is_small_int_v<T>) {
    return static_cast<int>(v);
  } else if constexpr (is_complex_v<T> || std::is_same_v<T, std::string>) {
    static_assert(!sizeof(T), "no scalar value");
  } else {
    return static_cast<double>(v);
  }
}

// The value in a form `std::ostream <<` prints as a number.
template <class T>
auto to_printable(const T& v) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<float>(v);
  } else if constexpr (is_small_int_v<T> || std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    return static_cast<int>(v);
  } else {
    return v;
  }
}

// Calls f.template operator()<T>() with T the C++ type of `t`; throws for Undefined.
template <class F>
decltype(auto) visit_dtype(DataType t, F&& f) {
  switch (t) {
    case DataType::Float32:
      return f.template operator()<float>();
    case DataType::UInt8:
      return f.template operator()<uint8_t>();
    case DataType::Int8:
      return f.template operator()<int8_t>();
    case DataType::UInt16:
      return f.template operator()<uint16_t>();
    case DataType::Int16:
      return f.template operator()<int16_t>();
    case DataType::Int32:
      return f.template operator()<int32_t>();
    case DataType::Int64:
      return f.template operator()<int64_t>();
    case DataType::String:
      return f.template operator()<std::string>();
    case DataType::Bool:
      return f.template operator()<bool>();
    case DataType::Float16:
      return f.template operator()<Float16>();
    case DataType::Float64:
      return f.template operator()<double>();
    case DataType::UInt32:
      return f.template operator()<uint32_t>();
    case DataType::UInt64:
      return f.template operator()<uint64_t>();
    case DataType::Complex64:
      return f.template operator()<std::complex<float>>();
    case DataType::Complex128:
      return f.template operator()<std::complex<double>>();
    case DataType::BFloat16:
      return f.template operator()<BFloat16>();
    case DataType::Float8E4M3FN:
      return f.template operator()<Float8E4M3FN>();
    case DataType::Float8E4M3FNUZ:
      return f.template operator()<Float8E4M3FNUZ>();
    case DataType::Float8E5M2:
      return f.template operator()<Float8E5M2>();
    case DataType::Float8E5M2FNUZ:
      return f.template operator()<Float8E5M2FNUZ>();
    case DataType::UInt4:
      return f.template operator()<UInt4>();
    case DataType::Int4:
      return f.template operator()<Int4>();
    case DataType::Float4E2M1:
      return f.template operator()<Float4E2M1>();
    case DataType::Float8E8M0:
      return f.template operator()<Float8E8M0>();
    case DataType::UInt2:
      return f.template operator()<UInt2>();
    case DataType::Int2:
      return f.template operator()<Int2>();
    case DataType::Undefined:
      break;
  }
  throw Error("undefined element type");
}

}  // namespace kiln
