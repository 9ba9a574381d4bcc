// kiln element types and numpy dtypes.
//
// The types numpy holds bit for bit map one to one (float16/32/64, the integers, bool,
// complex64/128); strings are numpy object arrays of str. Types numpy lacks read as the nearest
// numpy type: bfloat16, the float8 and float4 types as float32, int4/int2 as int8 and
// uint4/uint2 as uint8 (kiln keeps those one element per byte, so the int8/uint8 view needs no
// copy).
#pragma once

#include <pybind11/numpy.h>

#include "kiln/dtype.h"

namespace kiln_python {

// The numpy dtype a kiln tensor of `dtype` reads as.
pybind11::dtype numpy_dtype(kiln::DataType dtype);
// True when numpy_dtype(dtype) has the same bytes as kiln's storage (an in-place view works).
bool same_bytes_in_numpy(kiln::DataType dtype);
// The kiln type of a numpy dtype with native byte order; Undefined when ONNX has none
// (float128, datetime, void, ...). Object, str and bytes arrays are String.
kiln::DataType dtype_from_numpy(const pybind11::dtype& dtype);
// True for the kiln types numpy has no dtype for (converted on the way in and out).
bool is_converted_type(kiln::DataType dtype);

}  // namespace kiln_python
