// Ops that make a tensor from an attribute (Constant), from a shape or a range given as values,
// and the random ops.
#include "opdefs/all_defs.h"
#include "opdefs/constant.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// Constant: the type and shape of its value (parse_constant_value throws for a node the
// kernel rejects, which leaves the output unknown).
std::vector<ValueInfo> constant_rule(const InferenceContext& ctx) {
  const Tensor value = parse_constant_value(ctx.info());
  std::vector<Dim> dims;
  for (int64_t d : value.shape()) dims.push_back(fixed_dim(d));
  return {tensor_type(value.dtype(), dims)};
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
