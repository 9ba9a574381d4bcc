// QuantizeLinear and DequantizeLinear: their attributes, the ranges of the quantized types, and
// how a parameter (a scale or a zero point) covers the tensor it describes: per tensor, per axis
// or in blocks along the axis. One definition for the CPU kernels and the GPU backends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The closed range of a quantized integer type; false for the float types.
struct IntRange {
  int64_t lo = 0, hi = 0;
};
bool quantized_int_range(DataType t, IntRange& range);
bool is_quantized_float_type(DataType t);  // the float8 types and float4e2m1

struct QuantAttrs {
  int64_t axis = 1;
  int64_t block_size = 0;
  bool saturate = true;
  DataType output_dtype = DataType::Undefined;
  DataType precision = DataType::Undefined;  // QuantizeLinear only
};

// QuantizeLinear's output type: y_zero_point's type when it is given, else output_dtype, else
// uint8 (the CPU kernel, the shape rule and the GPU backends all ask this).
inline DataType quantize_output_type(DataType output_dtype, std::optional<DataType> zero_point) {
  if (zero_point) return *zero_point;
  return output_dtype == DataType::Undefined ? DataType::UInt8 : output_dtype;
}

// kiln::Error (naming the node) for a negative block_size, or an output_dtype or precision that
// is no type the op produces or divides in.
QuantAttrs parse_quant_attrs(const NodeInfo& info, bool quantize);

// The quantized tensor x seen as [outer, extent, inner] around the quantization axis. The
// parameter of the element at (o, a, i) is at o * outer_stride + (a / block) * axis_stride +
// i * inner_stride:
//   per-tensor  all strides 0 (and outer spans every element);
//   per-axis    axis_stride 1 (one value per index of the axis);
//   blocked     the parameter has x's shape but ceil(extent / block) along the axis.
struct QuantParamLayout {
  int64_t outer = 1, extent = 1, inner = 1;
  int64_t block = 1;
  int64_t outer_stride = 0, axis_stride = 0, inner_stride = 0;
  int64_t param_index(int64_t o, int64_t a, int64_t i) const {
    return o * outer_stride + (a / block) * axis_stride + i * inner_stride;
  }
};

// The layout of a parameter of shape `param` (named `what` in errors) for a tensor of shape
// `x`: a single value is per-tensor whatever the axis; otherwise block_size 0 asks for a 1-D
// per-axis parameter and a positive block_size for a blocked one. nullopt with `error` set for
// any shape that fits neither.
std::optional<QuantParamLayout> quant_param_layout(const Shape& x, const Shape& param, int64_t axis,
                                                   int64_t block_size, const char* what,
                                                   std::string& error);

// `v` rounded to the nearest value of the float type `t` (float32, float16, bfloat16 or
// float64), ties to even, as a double: the result of an operation done in that precision, as
// ONNX's reference computes the quantized ops' scales.
double round_to_precision(double v, DataType t);

}  // namespace kiln
