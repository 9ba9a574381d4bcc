// Ops that pick elements by index: Gather, TopK, OneHot, Compress, NonMaxSuppression.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

std::vector<ValueInfo> gather_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>*data = ctx.shape(0), *indices = ctx.shape(1);
  if (!data || !indices) return {dtype_only(x->dtype)};
  const int64_t rank = static_cast<int64_t>(data->size());
  int64_t axis = ctx.info().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {dtype_only(x->dtype)};
  std::vector<Dim> out(data->begin(), data->begin() + axis);
  out.insert(out.end(), indices->begin(), indices->end());
  out.insert(out.end(), data->begin() + axis + 1, data->end());
  return {tensor_type(x->dtype, out)};
}

// TopK(X, K): Values (X's type) and Indices (int64), X's shape with `axis` cut to the constant k.
std::vector<ValueInfo> topk_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  std::optional<std::vector<int64_t>> k;
  if (ctx.opset() < 10) {
    k = std::vector<int64_t>{ctx.info().required_int("k")};
  } else {
    k = ctx.constant_ints(1);
  }
  const int64_t rank = xs ? static_cast<int64_t>(xs->size()) : 0;
  int64_t axis = ctx.info().attr_int("axis", -1);
  if (axis < 0) axis += rank;
  if (!xs || !k || k->size() != 1 || (*k)[0] < 0 || axis < 0 || axis >= rank) {
    return {dtype_only(x->dtype), dtype_only(DataType::Int64)};
  }
  std::vector<Dim> out = *xs;
  const Dim& along = out[static_cast<size_t>(axis)];
  if (along.is_fixed() && (*k)[0] > along.value) {
    return {dtype_only(x->dtype), dtype_only(DataType::Int64)};  // the kernel reports it
  }
  out[static_cast<size_t>(axis)] = fixed_dim((*k)[0]);
  return {tensor_type(x->dtype, out), tensor_type(DataType::Int64, out)};
}

}  // namespace

void define_indexing_ops(OpDefs& defs) {
  defs.define("Gather").infer = gather_rule;
  OpDef& topk = defs.define("TopK");
  topk.infer = topk_rule;
  topk.shape_inputs = {{10, {1}}};
  defs.define("OneHot").shape_inputs = {{9, {1}}};
  defs.define("Compress").shape_inputs = {{9, {1}}};
  defs.define("NonMaxSuppression").shape_inputs = {{10, {2, 3, 4}}};
}

}  // namespace kiln
