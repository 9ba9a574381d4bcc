// Ops that make a tensor from a shape or a range given as values, and the random ops.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

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

}  // namespace

void define_generator_ops(OpDefs& defs) {
  OpDef& constant_of_shape = defs.define("ConstantOfShape");
  constant_of_shape.infer = constant_of_shape_rule;
  constant_of_shape.shape_inputs = {{9, {0}}};
  defs.define("Range").shape_inputs = {{11, {0, 1, 2}}};
  // Random draws differ between runs: never folded into constants at load time.
  for (const char* op : {"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike",
                         "Bernoulli", "Multinomial"}) {
    defs.define(op).nondeterministic = true;
  }
}

}  // namespace kiln
