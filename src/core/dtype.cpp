// Properties of kiln::DataType.
#include "kiln/dtype.h"

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

std::string_view dtype_name(DataType t) {
  switch (t) {
    case DataType::Undefined:
      return "undefined";
    case DataType::Float32:
      return "float32";
    case DataType::UInt8:
      return "uint8";
    case DataType::Int8:
      return "int8";
    case DataType::UInt16:
      return "uint16";
    case DataType::Int16:
      return "int16";
    case DataType::Int32:
      return "int32";
    case DataType::Int64:
      return "int64";
    case DataType::String:
      return "string";
    case DataType::Bool:
      return "bool";
    case DataType::Float16:
      return "float16";
    case DataType::Float64:
      return "float64";
    case DataType::UInt32:
      return "uint32";
    case DataType::UInt64:
      return "uint64";
    case DataType::Complex64:
      return "complex64";
    case DataType::Complex128:
      return "complex128";
    case DataType::BFloat16:
      return "bfloat16";
    case DataType::Float8E4M3FN:
      return "float8e4m3fn";
    case DataType::Float8E4M3FNUZ:
      return "float8e4m3fnuz";
    case DataType::Float8E5M2:
      return "float8e5m2";
    case DataType::Float8E5M2FNUZ:
      return "float8e5m2fnuz";
    case DataType::UInt4:
      return "uint4";
    case DataType::Int4:
      return "int4";
    case DataType::Float4E2M1:
      return "float4e2m1";
    case DataType::Float8E8M0:
      return "float8e8m0";
    case DataType::UInt2:
      return "uint2";
    case DataType::Int2:
      return "int2";
  }
  // A value cast from an ONNX code kiln does not know; error messages still need a name.
  return "unknown";
}

size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::Float32:
      return sizeof(float);
    case DataType::UInt8:
      return sizeof(uint8_t);
    case DataType::Int8:
      return sizeof(int8_t);
    case DataType::UInt16:
      return sizeof(uint16_t);
    case DataType::Int16:
      return sizeof(int16_t);
    case DataType::Int32:
      return sizeof(int32_t);
    case DataType::Int64:
      return sizeof(int64_t);
    case DataType::String:
      return sizeof(std::string);
    case DataType::Bool:
      return sizeof(bool);
    case DataType::Float16:
      return sizeof(Float16);
    case DataType::Float64:
      return sizeof(double);
    case DataType::UInt32:
      return sizeof(uint32_t);
    case DataType::UInt64:
      return sizeof(uint64_t);
    case DataType::Complex64:
      return sizeof(std::complex<float>);
    case DataType::Complex128:
      return sizeof(std::complex<double>);
    case DataType::BFloat16:
      return sizeof(BFloat16);
    case DataType::Float8E4M3FN:
      return sizeof(Float8E4M3FN);
    case DataType::Float8E4M3FNUZ:
      return sizeof(Float8E4M3FNUZ);
    case DataType::Float8E5M2:
      return sizeof(Float8E5M2);
    case DataType::Float8E5M2FNUZ:
      return sizeof(Float8E5M2FNUZ);
    case DataType::UInt4:
      return sizeof(UInt4);
    case DataType::Int4:
      return sizeof(Int4);
    case DataType::Float4E2M1:
      return sizeof(Float4E2M1);
    case DataType::Float8E8M0:
      return sizeof(Float8E8M0);
    case DataType::UInt2:
      return sizeof(UInt2);
    case DataType::Int2:
      return sizeof(Int2);
    case DataType::Undefined:
      break;
  }
  return 0;
}

// Undefined (0) names no element type, so a tensor that carries it is not valid.
bool is_valid_dtype(int32_t onnx_code) {
  return onnx_code >= static_cast<int32_t>(DataType::Float32) &&
         onnx_code <= static_cast<int32_t>(DataType::Int2);
}

bool is_float_dtype(DataType t) {
  switch (t) {
    case DataType::Float32:
    case DataType::Float16:
    case DataType::Float64:
    case DataType::BFloat16:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Float4E2M1:
      return true;
    default:
      return false;
  }
}

bool is_integer_dtype(DataType t) {
  switch (t) {
    case DataType::UInt8:
    case DataType::Int8:
    case DataType::UInt16:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::UInt32:
    case DataType::UInt64:
    case DataType::UInt4:
    case DataType::Int4:
    case DataType::UInt2:
    case DataType::Int2:
      return true;
    default:
      return false;
  }
}

bool is_signed_dtype(DataType t) {
  switch (t) {
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Int4:
    case DataType::Int2:
      return true;
    // float8e8m0 has no sign bit: it holds positive powers of two only.
    case DataType::Float8E8M0:
      return false;
    default:
      return is_float_dtype(t);
  }
}

}  // namespace kiln
