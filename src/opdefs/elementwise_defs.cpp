// Element-wise ops: unary ops keep their input's type; binary and variadic ops broadcast
// (numpy rules); comparisons and the logical ops give bool.
#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

std::vector<ValueInfo> broadcast_rule(const InferenceContext& ctx, size_t first, DataType dtype) {
  if (dtype == DataType::Undefined) return {};
  const auto shape = broadcast_shapes(ctx, first);
  return {shape ? tensor_type(dtype, *shape) : dtype_only(dtype)};
}

std::vector<ValueInfo> same_dtype_broadcast(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  return broadcast_rule(ctx, 0, x ? x->dtype : DataType::Undefined);
}

std::vector<ValueInfo> bool_broadcast(const InferenceContext& ctx) {
  return broadcast_rule(ctx, 0, DataType::Bool);
}

// Where(condition, x, y): x's type, the broadcast of all three.
std::vector<ValueInfo> where_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(1);
  return broadcast_rule(ctx, 0, x ? x->dtype : DataType::Undefined);
}

std::vector<ValueInfo> bool_like_input0(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  ValueInfo v = x ? *x : ValueInfo{};
  v.dtype = DataType::Bool;
  return {v};
}

std::vector<ValueInfo> cast_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  ValueInfo out = x ? *x : ValueInfo{};
  if (ctx.node().op_type == "CastLike") {
    const ValueInfo* like = ctx.input(1);
    out.dtype = like ? like->dtype : DataType::Undefined;
  } else {
    out.dtype = static_cast<DataType>(ctx.info().required_int("to"));
  }
  return {out};
}

}  // namespace

KILN_OP_DEFS(elementwise);
void define_elementwise_ops(OpDefs& defs) {
  for (const char* op : {"Relu",       "LeakyRelu",  "PRelu",       "Elu",       "Selu",
                         "Celu",       "Gelu",       "HardSigmoid", "HardSwish", "Mish",
                         "Softplus",   "Softsign",   "Sigmoid",     "Tanh",      "ThresholdedRelu",
                         "Shrink",     "Swish",      "Clip",        "Abs",       "Neg",
                         "Reciprocal", "Floor",      "Ceil",        "Round",     "Sqrt",
                         "Exp",        "Log",        "Sin",         "Cos",       "Tan",
                         "Asin",       "Acos",       "Atan",        "Sinh",      "Cosh",
                         "Asinh",      "Acosh",      "Atanh",       "Erf",       "Sign",
                         "Not",        "BitwiseNot", "Identity"}) {
    defs.define(op).infer = same_as_input0;
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd",
                         "BitwiseOr", "BitwiseXor", "Min", "Max", "Sum", "Mean"}) {
    defs.define(op).infer = same_dtype_broadcast;
  }
  for (const char* op :
       {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor"}) {
    defs.define(op).infer = bool_broadcast;
  }
  for (const char* op : {"IsNaN", "IsInf"}) defs.define(op).infer = bool_like_input0;
  defs.define("Where").infer = where_rule;
  defs.define("Cast").infer = cast_rule;
  defs.define("CastLike").infer = cast_rule;
  defs.define("BitCast").infer = cast_rule;  // the same bits read as `to`: same shape
  // SwiGLU(a, b): a's type, a and b broadcast.
  defs.define("SwiGLU").infer = same_dtype_broadcast;
  // ONNX Runtime's element-wise contrib ops (bias and skip added first have the input's shape).
  for (const char* op : {"Gelu", "QuickGelu", "FastGelu", "BiasGelu", "BiasAdd"}) {
    defs.define(ir::kMicrosoftDomain, op).infer = same_as_input0;
  }
  // Dropout's first output is its input (scaled in training); the mask is not inferred.
  defs.define("Dropout").infer = same_as_input0;

  // Scans along an axis given as an input.
  OpDef& cumsum = defs.define("CumSum");
  cumsum.infer = same_as_input0;
  cumsum.shape_inputs = {{11, {1}}};
  OpDef& cumprod = defs.define("CumProd");
  cumprod.infer = same_as_input0;
  cumprod.shape_inputs = {{26, {1}}};
  OpDef& trilu = defs.define("Trilu");
  trilu.infer = same_as_input0;
  trilu.shape_inputs = {{14, {1}}};
}

}  // namespace kiln
