// Ops that pick elements by index: Gather, GatherElements, GatherND, the scatters, TopK, OneHot,
// Compress, NonZero, Unique, NonMaxSuppression.
#include <algorithm>

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

// GatherElements(data, indices): the indices' shape, the data's type.
std::vector<ValueInfo> gather_elements_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* indices = ctx.shape(1);
  return {indices ? tensor_type(x->dtype, *indices) : dtype_only(x->dtype)};
}

// GatherND(data [r], indices [q]): the indices' dims but the last (k, the length of an index
// tuple), then data's dims after batch_dims + k, of the data's type. Bad ranks or k leave the
// shape unknown for the kernel to report.
std::vector<ValueInfo> gather_nd_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>*data = ctx.shape(0), *indices = ctx.shape(1);
  if (!data || !indices || indices->empty() || !indices->back().is_fixed()) {
    return {dtype_only(x->dtype)};
  }
  const int64_t batch_dims = ctx.opset() >= 12 ? ctx.info().attr_int("batch_dims", 0) : 0;
  const auto r = static_cast<int64_t>(data->size()), q = static_cast<int64_t>(indices->size());
  const int64_t k = indices->back().value;
  if (batch_dims < 0 || batch_dims >= std::min(r, q) || k < 1 || k > r - batch_dims) {
    return {dtype_only(x->dtype)};
  }
  std::vector<Dim> out(indices->begin(), indices->end() - 1);
  out.insert(out.end(), data->begin() + batch_dims + k, data->end());
  return {tensor_type(x->dtype, out)};
}

// NonZero(X): int64 [rank, count], the count known only at run time; a scalar counts as rank 1
// (as numpy's nonzero does).
std::vector<ValueInfo> non_zero_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(DataType::Int64)};
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(xs->size()));
  return {tensor_type(DataType::Int64, {fixed_dim(rank), Dim{}})};
}

// NonMaxSuppression: int64 [selected, 3] (batch, class, box).
std::vector<ValueInfo> nms_rule(const InferenceContext&) {
  return {tensor_type(DataType::Int64, {Dim{}, fixed_dim(3)})};
}

// Unique(X): Y (X's type), indices, inverse_indices and counts (int64). Without `axis` Y is the
// flattened distinct values; with it, X's shape with that axis cut to the distinct slices.
std::vector<ValueInfo> unique_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  const ValueInfo count = tensor_type(DataType::Int64, {Dim{}});
  if (!ctx.info().has_attr("axis")) {
    Dim elements = fixed_dim(1);
    for (const Dim& d : xs ? *xs : std::vector<Dim>{Dim{}}) {
      elements = d.is_fixed() && elements.is_fixed() ? fixed_dim(elements.value * d.value) : Dim{};
    }
    return {tensor_type(x->dtype, {Dim{}}), count, tensor_type(DataType::Int64, {elements}), count};
  }
  if (!xs) return {dtype_only(x->dtype), count, count, count};
  const int64_t rank = static_cast<int64_t>(xs->size());
  int64_t axis = ctx.info().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {};
  std::vector<Dim> y = *xs;
  y[static_cast<size_t>(axis)] = Dim{};
  return {tensor_type(x->dtype, y), count,
          tensor_type(DataType::Int64, {(*xs)[static_cast<size_t>(axis)]}), count};
}

// Compress(input, condition): as many entries as the condition selects, known at run time:
// 1-D without `axis`, the input's shape with that axis unknown with it.
std::vector<ValueInfo> compress_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  if (!ctx.info().has_attr("axis")) return {tensor_type(x->dtype, {Dim{}})};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(x->dtype)};
  const int64_t rank = static_cast<int64_t>(xs->size());
  int64_t axis = ctx.info().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {};
  std::vector<Dim> out = *xs;
  out[static_cast<size_t>(axis)] = Dim{};
  return {tensor_type(x->dtype, out)};
}

// OneHot(indices, depth, values): the indices' shape with a depth axis inserted at `axis`, in
// the values' type.
std::vector<ValueInfo> one_hot_rule(const InferenceContext& ctx) {
  const ValueInfo* values = ctx.input(2);
  if (!values) return {};
  const std::vector<Dim>* is = ctx.shape(0);
  if (!is) return {dtype_only(values->dtype)};
  const int64_t rank = static_cast<int64_t>(is->size()) + 1;
  int64_t axis = ctx.info().attr_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {};
  const std::optional<std::vector<int64_t>> depth = ctx.constant_ints(1);
  std::vector<Dim> out = *is;
  const bool known = depth && depth->size() == 1 && (*depth)[0] > 0;
  out.insert(out.begin() + axis, known ? fixed_dim((*depth)[0]) : Dim{});
  return {tensor_type(values->dtype, out)};
}

}  // namespace

KILN_OP_DEFS(indexing);
void define_indexing_ops(OpDefs& defs) {
  defs.define("Gather").infer = gather_rule;
  defs.define("GatherElements").infer = gather_elements_rule;
  defs.define("GatherND").infer = gather_nd_rule;
  for (const char* op : {"ScatterElements", "Scatter", "ScatterND"}) {
    defs.define(op).infer = same_as_input0;
  }
  defs.define("NonZero").infer = non_zero_rule;
  defs.define("Unique").infer = unique_rule;
  OpDef& topk = defs.define("TopK");
  topk.infer = topk_rule;
  topk.shape_inputs = {{10, {1}}};
  OpDef& one_hot = defs.define("OneHot");
  one_hot.infer = one_hot_rule;
  one_hot.shape_inputs = {{9, {1}}};
  OpDef& compress = defs.define("Compress");
  compress.infer = compress_rule;
  compress.shape_inputs = {{9, {1}}};
  OpDef& nms = defs.define("NonMaxSuppression");
  nms.infer = nms_rule;
  nms.shape_inputs = {{10, {2, 3, 4}}};
}

}  // namespace kiln
