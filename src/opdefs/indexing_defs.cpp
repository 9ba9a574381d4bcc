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

}  // namespace

void define_indexing_ops(OpDefs& defs) {
  defs.define("Gather").infer = gather_rule;
  defs.define("TopK").shape_inputs = {{10, {1}}};
  defs.define("OneHot").shape_inputs = {{9, {1}}};
  defs.define("Compress").shape_inputs = {{9, {1}}};
  defs.define("NonMaxSuppression").shape_inputs = {{10, {2, 3, 4}}};
}

}  // namespace kiln
