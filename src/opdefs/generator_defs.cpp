// Ops that make a tensor from an attribute (Constant), from a shape or a range given as values,
// and the random ops.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// Constant: the type and shape of whichever value attribute it has (exactly one).
std::vector<ValueInfo> constant_rule(const InferenceContext& ctx) {
  const NodeInfo& info = ctx.info();
  int count = 0;
  for (const char* name : {"value", "sparse_value", "value_float", "value_floats", "value_int",
                           "value_ints", "value_string", "value_strings"}) {
    count += info.has_attr(name) ? 1 : 0;
  }
  if (count != 1) return {};  // the kernel reports it
  auto list = [&](DataType dtype, size_t n) {
    return std::vector<ValueInfo>{tensor_type(dtype, {fixed_dim(static_cast<int64_t>(n))})};
  };
  if (const std::optional<Tensor> value = info.attr_tensor("value")) {
    std::vector<Dim> dims;
    for (int64_t d : value->shape()) dims.push_back(fixed_dim(d));
    return {tensor_type(value->dtype(), dims)};
  }
  if (info.has_attr("value_float")) return {tensor_type(DataType::Float32, {})};
  if (info.has_attr("value_floats"))
    return list(DataType::Float32, info.attr_floats("value_floats").size());
  if (info.has_attr("value_int")) return {tensor_type(DataType::Int64, {})};
  if (info.has_attr("value_ints"))
    return list(DataType::Int64, info.attr_ints("value_ints").size());
  if (info.has_attr("value_string")) return {tensor_type(DataType::String, {})};
  if (info.has_attr("value_strings")) {
    return list(DataType::String, info.attr_strings("value_strings").size());
  }
  return {};  // sparse_value or none: the kernel reports it
}

// ConstantOfShape(shape): the constant shape, of the `value` attribute's type (float32 by
// default).
std::vector<ValueInfo> constant_of_shape_rule(const InferenceContext& ctx) {
  const std::optional<Tensor> value = ctx.info().attr_tensor("value");
  const DataType dtype = value ? value->dtype() : DataType::Float32;
  const auto dims = ctx.constant_ints(0);
  if (!dims) return {dtype_only(dtype)};
  std::vector<Dim> out;
  for (int64_t d : *dims) {
    if (d < 0) return {dtype_only(dtype)};
    out.push_back(fixed_dim(d));
  }
  return {tensor_type(dtype, out)};
}

// Range(start, limit, delta): one dimension, of the inputs' type. Its length is left unknown:
// it depends on the values, and a Range of constants is folded before inference needs it.
std::vector<ValueInfo> range_rule(const InferenceContext& ctx) {
  const ValueInfo* start = ctx.input(0);
  if (!start) return {};
  return {tensor_type(start->dtype, {Dim{}})};
}

// A dtype attribute; `otherwise` when absent.
DataType dtype_attr(const InferenceContext& ctx, const char* name, DataType otherwise) {
  if (!ctx.info().has_attr(name)) return otherwise;
  const int64_t code = ctx.info().attr_int(name, 0);
  if (code <= 0 || code > INT32_MAX || !is_valid_dtype(static_cast<int32_t>(code))) {
    throw Error("bad dtype attribute");  // the kernel reports it
  }
  return static_cast<DataType>(code);
}

// RandomNormal, RandomUniform: the `shape` attribute, `dtype` (float32 by default).
std::vector<ValueInfo> random_rule(const InferenceContext& ctx) {
  std::vector<Dim> dims;
  for (int64_t d : ctx.info().required_ints("shape")) {
    if (d < 0) return {};
    dims.push_back(fixed_dim(d));
  }
  return {tensor_type(dtype_attr(ctx, "dtype", DataType::Float32), dims)};
}

// RandomNormalLike, RandomUniformLike, Bernoulli, EyeLike: the input's shape, `dtype` or the
// input's type.
std::vector<ValueInfo> like_input_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const DataType dtype = dtype_attr(ctx, "dtype", x->dtype);
  const std::vector<Dim>* xs = ctx.shape(0);
  return {xs ? tensor_type(dtype, *xs) : dtype_only(dtype)};
}

// Multinomial(input [batch, classes]): [batch, sample_size] of `dtype` (int32 by default).
std::vector<ValueInfo> multinomial_rule(const InferenceContext& ctx) {
  const DataType dtype = dtype_attr(ctx, "dtype", DataType::Int32);
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() != 2) return {dtype_only(dtype)};
  return {tensor_type(dtype, {(*xs)[0], fixed_dim(ctx.info().attr_int("sample_size", 1))})};
}

}  // namespace

KILN_OP_DEFS(generator);
void define_generator_ops(OpDefs& defs) {
  defs.define("Constant").infer = constant_rule;
  OpDef& constant_of_shape = defs.define("ConstantOfShape");
  constant_of_shape.infer = constant_of_shape_rule;
  constant_of_shape.shape_inputs = {{9, {0}}};
  OpDef& range = defs.define("Range");
  range.infer = range_rule;
  range.shape_inputs = {{11, {0, 1, 2}}};
  // Random draws differ between runs: never folded into constants at load time.
  for (const char* op : {"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike",
                         "Bernoulli", "Multinomial"}) {
    defs.define(op).nondeterministic = true;
  }
  for (const char* op : {"RandomUniform", "RandomNormal"}) defs.define(op).infer = random_rule;
  for (const char* op : {"RandomUniformLike", "RandomNormalLike", "Bernoulli", "EyeLike"}) {
    defs.define(op).infer = like_input_rule;
  }
  defs.define("Multinomial").infer = multinomial_rule;
}

}  // namespace kiln
