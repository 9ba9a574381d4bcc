// The element-wise ai.onnx.ml ops: each output element comes from the input element at the
// same place, so the output has the input's shape.
#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

constexpr const char* kMl = ir::kOnnxMlDomain;

// The input's shape in `dtype`.
std::vector<ValueInfo> input_shape_as(const InferenceContext& ctx, DataType dtype) {
  const std::vector<Dim>* xs = ctx.shape(0);
  return {xs ? tensor_type(dtype, *xs) : dtype_only(dtype)};
}

// Normalizer and Scaler compute in float32 whatever the input's type.
std::vector<ValueInfo> float_rule(const InferenceContext& ctx) {
  if (!ctx.input(0)) return {};
  return input_shape_as(ctx, DataType::Float32);
}

// CategoryMapper maps strings to int64 and int64 to strings.
std::vector<ValueInfo> category_mapper_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  if (x->dtype == DataType::String) return input_shape_as(ctx, DataType::Int64);
  if (x->dtype == DataType::Int64) return input_shape_as(ctx, DataType::String);
  return {};  // the kernel rejects it
}

}  // namespace

KILN_OP_DEFS(ml);
void define_ml_ops(OpDefs& defs) {
  for (const char* op : {"Binarizer", "Imputer"}) defs.define(kMl, op).infer = same_as_input0;
  for (const char* op : {"Normalizer", "Scaler"}) defs.define(kMl, op).infer = float_rule;
  defs.define(kMl, "CategoryMapper").infer = category_mapper_rule;
}

}  // namespace kiln
