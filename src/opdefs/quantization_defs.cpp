// Quantization: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear keep X's shape;
// the element type is the quantized or the dequantized one. (The quantized convolutions and
// products are window.cpp's and matmul_defs.cpp's.)
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"
#include "opdefs/quantize_linear.h"

namespace kiln {
namespace {

// A dtype attribute (output_dtype): Undefined when absent or 0.
DataType dtype_attr(const InferenceContext& ctx, const char* name) {
  const int64_t code = ctx.info().attr_int(name, 0);
  if (code <= 0 || code > INT32_MAX || !is_valid_dtype(static_cast<int32_t>(code))) {
    return DataType::Undefined;  // the kernel rejects a bad code
  }
  return static_cast<DataType>(code);
}

// X's shape in `dtype`.
std::vector<ValueInfo> like_x(const InferenceContext& ctx, DataType dtype) {
  const std::vector<Dim>* xs = ctx.shape(0);
  return {xs ? tensor_type(dtype, *xs) : dtype_only(dtype)};
}

// QuantizeLinear(x, y_scale, y_zero_point): y_zero_point's type, else output_dtype, else uint8.
std::vector<ValueInfo> quantize_rule(const InferenceContext& ctx) {
  if (!ctx.input(0)) return {};
  const bool has_zero_point = ctx.num_inputs() > 2 && !ctx.node().inputs[2].empty();
  if (has_zero_point && !ctx.input(2)) return {};
  const DataType attr = dtype_attr(ctx, "output_dtype");
  return like_x(
      ctx, quantize_output_type(
               attr, has_zero_point ? std::optional<DataType>(ctx.input(2)->dtype) : std::nullopt));
}

// DequantizeLinear(x, x_scale, x_zero_point): output_dtype, else x_scale's type.
std::vector<ValueInfo> dequantize_rule(const InferenceContext& ctx) {
  if (!ctx.input(0)) return {};
  const DataType attr = dtype_attr(ctx, "output_dtype");
  if (attr != DataType::Undefined) return like_x(ctx, attr);
  if (!ctx.input(1)) return {};
  return like_x(ctx, ctx.input(1)->dtype);
}

// DynamicQuantizeLinear(x): y (uint8, X's shape), y_scale and y_zero_point (scalars).
std::vector<ValueInfo> dynamic_quantize_rule(const InferenceContext& ctx) {
  if (!ctx.input(0)) return {};
  std::vector<ValueInfo> out = like_x(ctx, DataType::UInt8);
  out.push_back(tensor_type(DataType::Float32, {}));
  out.push_back(tensor_type(DataType::UInt8, {}));
  return out;
}

}  // namespace

KILN_OP_DEFS(quantization);
void define_quantization_ops(OpDefs& defs) {
  defs.define("QuantizeLinear").infer = quantize_rule;
  defs.define("DequantizeLinear").infer = dequantize_rule;
  defs.define("DynamicQuantizeLinear").infer = dynamic_quantize_rule;
}

}  // namespace kiln
