// ONNX Runtime's QLinear contrib ops (com.microsoft) on int8 or uint8 tensors with per-tensor
// scales and zero points: QLinearAdd and QLinearMul (broadcast), QLinearConcat, the element-wise
// QLinearLeakyRelu, QLinearSigmoid and QLinearSoftmax, and QLinearGlobalAveragePool.
#include "ir/domains.h"
#include "opdefs/all_defs.h"
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
  const DataType dtype = y_zero->dtype;
  const std::vector<Dim>* first = ctx.shape(2);
  if (!first || first->empty()) return {dtype_only(dtype)};
  const auto rank = static_cast<int64_t>(first->size());
  int64_t axis = ctx.info().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {dtype_only(dtype)};
  std::vector<Dim> out = *first;
  int64_t total = 0;
  for (size_t i = 2; i < ctx.num_inputs(); i += 3) {
    const std::vector<Dim>* s = ctx.shape(i);
    if (!s || static_cast<int64_t>(s->size()) != rank) return {dtype_only(dtype)};
    const Dim& d = (*s)[static_cast<size_t>(axis)];
    total = d.is_fixed() && total >= 0 ? total + d.value : -1;
    for (size_t k = 0; k < s->size(); ++k) {
      if (static_cast<int64_t>(k) != axis && !out[k].is_fixed() && (*s)[k].is_fixed())
        out[k] = (*s)[k];
    }
  }
  out[static_cast<size_t>(axis)] = total >= 0 ? fixed_dim(total) : Dim{};
  return {tensor_type(dtype, out)};
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
