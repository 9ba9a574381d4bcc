// kiln::DataType — the element types of ONNX tensors, numbered as in onnx.proto's
// TensorProto.DataType so that conversion to and from files is the identity.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kiln/export.h"
#include "kiln/float_types.h"

namespace kiln {

enum class DataType : int32_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  UInt4 = 21,
  Int4 = 22,
  Float4E2M1 = 23,
  Float8E8M0 = 24,
  UInt2 = 25,
  Int2 = 26,
};

// "float32", "int64", ... (the names numpy and the ONNX docs use).
KILN_API std::string_view dtype_name(DataType t);
// Bytes one element takes in kiln's memory (sub-byte types take one byte; see float_types.h).
// String tensors hold std::string objects: sizeof(std::string).
KILN_API size_t dtype_size(DataType t);
KILN_API bool is_valid_dtype(int32_t onnx_code);
KILN_API bool is_float_dtype(DataType t);    // float16/32/64, bfloat16, float8, float4
KILN_API bool is_integer_dtype(DataType t);  // signed or unsigned, any width (not bool)
KILN_API bool is_signed_dtype(
    DataType t);  // the signed integers and every float type but float8e8m0

// Maps a C++ element type to its DataType: dtype_of<float> == DataType::Float32.
template <class T>
struct DTypeOf;
#define KILN_DTYPE_OF(T, D)                        \
  template <>                                      \
  struct DTypeOf<T> {                              \
    static constexpr DataType value = DataType::D; \
  };
KILN_DTYPE_OF(float, Float32)
KILN_DTYPE_OF(double, Float64)
KILN_DTYPE_OF(uint8_t, UInt8)
KILN_DTYPE_OF(int8_t, Int8)
KILN_DTYPE_OF(uint16_t, UInt16)
KILN_DTYPE_OF(int16_t, Int16)
KILN_DTYPE_OF(int32_t, Int32)
KILN_DTYPE_OF(int64_t, Int64)
KILN_DTYPE_OF(uint32_t, UInt32)
KILN_DTYPE_OF(uint64_t, UInt64)
KILN_DTYPE_OF(bool, Bool)
KILN_DTYPE_OF(std::string, String)
KILN_DTYPE_OF(std::complex<float>, Complex64)
KILN_DTYPE_OF(std::complex<double>, Complex128)
KILN_DTYPE_OF(kiln::Float16, Float16)
KILN_DTYPE_OF(kiln::BFloat16, BFloat16)
KILN_DTYPE_OF(kiln::Float8E4M3FN, Float8E4M3FN)
KILN_DTYPE_OF(kiln::Float8E4M3FNUZ, Float8E4M3FNUZ)
KILN_DTYPE_OF(kiln::Float8E5M2, Float8E5M2)
KILN_DTYPE_OF(kiln::Float8E5M2FNUZ, Float8E5M2FNUZ)
KILN_DTYPE_OF(kiln::Float8E8M0, Float8E8M0)
KILN_DTYPE_OF(kiln::Float4E2M1, Float4E2M1)
KILN_DTYPE_OF(kiln::Int4, Int4)
KILN_DTYPE_OF(kiln::UInt4, UInt4)
KILN_DTYPE_OF(kiln::Int2, Int2)
KILN_DTYPE_OF(kiln::UInt2, UInt2)
#undef KILN_DTYPE_OF
template <class T>
inline constexpr DataType dtype_of = DTypeOf<T>::value;

}  // namespace kiln
