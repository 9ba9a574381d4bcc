// ONNX Runtime's QLinear contrib ops (com.microsoft) on int8 or uint8 tensors with per-tensor
// scales and zero points: QLinearAdd and QLinearMul (broadcast), QLinearConcat, the element-wise
// QLinearLeakyRelu, QLinearSigmoid and QLinearSoftmax, and QLinearGlobalAveragePool.
#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/concat.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// QLinearAdd/QLinearMul(A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
// C_zero_point): the broadcast of A and B, in A's type.
std::vector<ValueInfo> qlinear_binary_rule(const InferenceContext& ctx) {
  const ValueInfo* a = ctx.input(0);
  if (!a) return {};
  const std::vector<Dim>*sa = ctx.shape(0), *sb = ctx.shape(3);
  if (!sa || !sb) return {dtype_only(a->dtype)};
  const size_t rank = std::max(sa->size(), sb->size());
  std::vector<Dim> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const Dim da = i < rank - sa->size() ? fixed_dim(1) : (*sa)[i - (rank - sa->size())];
    const Dim db = i < rank - sb->size() ? fixed_dim(1) : (*sb)[i - (rank - sb->size())];
    out[i] = broadcast_dim(da, db);
  }
  return {tensor_type(a->dtype, out)};
}

// QLinearConcat(Y_scale, Y_zero_point, X0, X0_scale, X0_zero_point, X1, ...): the inputs X_i
// joined along `axis`, in Y_zero_point's type.
std::vector<ValueInfo> qlinear_concat_rule(const InferenceContext& ctx) {
  const ValueInfo* y_zero = ctx.input(1);
  if (!y_zero) return {};
  const std::optional<std::vector<Dim>> dims = concatenated_dims(ctx, 2, 3);
  if (!dims) return {dtype_only(y_zero->dtype)};
  return {tensor_type(y_zero->dtype, *dims)};
}

// QLinearGlobalAveragePool(X, x_scale, x_zero_point, y_scale, y_zero_point): the spatial axes
// become 1: [N, C, 1, ...], or [N, 1, ..., C] with channels_last.
std::vector<ValueInfo> qlinear_global_average_pool_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() < 3) return {dtype_only(x->dtype)};
  std::vector<Dim> out(xs->size(), fixed_dim(1));
  out[0] = (*xs)[0];
  if (ctx.info().attr_int("channels_last", 0) != 0) {
    out.back() = xs->back();
  } else {
    out[1] = (*xs)[1];
  }
  return {tensor_type(x->dtype, out)};
}

}  // namespace

KILN_OP_DEFS(qlinear);
void define_qlinear_ops(OpDefs& defs) {
  const char* ms = ir::kMicrosoftDomain;
  defs.define(ms, "QLinearAdd").infer = qlinear_binary_rule;
  defs.define(ms, "QLinearMul").infer = qlinear_binary_rule;
  defs.define(ms, "QLinearConcat").infer = qlinear_concat_rule;
  defs.define(ms, "QLinearGlobalAveragePool").infer = qlinear_global_average_pool_rule;
  for (const char* op : {"QLinearLeakyRelu", "QLinearSigmoid", "QLinearSoftmax"}) {
    defs.define(ms, op).infer = same_as_input0;
  }
}

}  // namespace kiln
