#include "dtypes.h"

#include <complex>
#include <cstdint>

namespace py = pybind11;
using kiln::DataType;

namespace kiln_python {

namespace {
constexpr int kNumpyHalf = 23;  // NPY_HALF: pybind11 has no format descriptor for float16
}

bool is_converted_type(DataType dtype) {
  switch (dtype) {
    case DataType::BFloat16:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Float4E2M1:
    case DataType::Int4:
    case DataType::UInt4:
    case DataType::Int2:
    case DataType::UInt2:
      return true;
    default:
      return false;
  }
}

bool same_bytes_in_numpy(DataType dtype) {
  switch (dtype) {
    case DataType::String:
    case DataType::Undefined:
      return false;
    case DataType::Int4:  // one element per byte, in range: the int8/uint8 view is exact
    case DataType::UInt4:
    case DataType::Int2:
    case DataType::UInt2:
      return true;
    default:
      return !is_converted_type(dtype);
  }
}

py::dtype numpy_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return py::dtype::of<float>();
    case DataType::Float64:
      return py::dtype::of<double>();
    case DataType::Float16:
      return py::dtype(kNumpyHalf);
    case DataType::Int8:
    case DataType::Int4:
    case DataType::Int2:
      return py::dtype::of<int8_t>();
    case DataType::Int16:
      return py::dtype::of<int16_t>();
    case DataType::Int32:
      return py::dtype::of<int32_t>();
    case DataType::Int64:
      return py::dtype::of<int64_t>();
    case DataType::UInt8:
    case DataType::UInt4:
    case DataType::UInt2:
      return py::dtype::of<uint8_t>();
    case DataType::UInt16:
      return py::dtype::of<uint16_t>();
    case DataType::UInt32:
      return py::dtype::of<uint32_t>();
    case DataType::UInt64:
      return py::dtype::of<uint64_t>();
    case DataType::Bool:
      return py::dtype::of<bool>();
    case DataType::Complex64:
      return py::dtype::of<std::complex<float>>();
    case DataType::Complex128:
      return py::dtype::of<std::complex<double>>();
    case DataType::String:
      return py::dtype("O");
    default:  // bfloat16, float8, float4
      return py::dtype::of<float>();
  }
}

DataType dtype_from_numpy(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  switch (kind) {
    case 'f':
      return size == 2   ? DataType::Float16
             : size == 4 ? DataType::Float32
             : size == 8 ? DataType::Float64
                         : DataType::Undefined;
    case 'i':
      return size == 1   ? DataType::Int8
             : size == 2 ? DataType::Int16
             : size == 4 ? DataType::Int32
             : size == 8 ? DataType::Int64
                         : DataType::Undefined;
    case 'u':
      return size == 1   ? DataType::UInt8
             : size == 2 ? DataType::UInt16
             : size == 4 ? DataType::UInt32
             : size == 8 ? DataType::UInt64
                         : DataType::Undefined;
    case 'b':
      return DataType::Bool;
    case 'c':
      return size == 8    ? DataType::Complex64
             : size == 16 ? DataType::Complex128
                          : DataType::Undefined;
    case 'O':
    case 'U':
    case 'S':
      return DataType::String;
    default:
      return DataType::Undefined;
  }
}

}  // namespace kiln_python
