// The ai.onnx.ml ops. The element-wise ones (Binarizer, Imputer, Normalizer, Scaler,
// CategoryMapper, LabelEncoder) keep the input's shape; the others see their input as
// [rows, columns] (a 1-D input is one row, a scalar one value) and give a row per input row,
// as wide as their attributes say.
#include <algorithm>
#include <string>

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

// The rows of input `i` seen as [rows, columns]; nullopt when its rank is unknown or above 2
// (the kernels reject those).
std::optional<Dim> rows_of(const InferenceContext& ctx, size_t i) {
  const std::vector<Dim>* s = ctx.shape(i);
  if (!s || s->size() > 2) return std::nullopt;
  return s->size() == 2 ? (*s)[0] : fixed_dim(1);
}

// Its columns: the last dim of a 2-D or 1-D input, 1 for a scalar.
Dim columns_of(const std::vector<Dim>& s) { return s.empty() ? fixed_dim(1) : s.back(); }

// [rows, width] of `dtype`.
ValueInfo rows_by(const std::optional<Dim>& rows, Dim width, DataType dtype) {
  return rows ? tensor_type(dtype, {*rows, width}) : dtype_only(dtype);
}

// The class labels' type: int64 or string, whichever list the node has (exactly one).
std::optional<DataType> label_type(const InferenceContext& ctx, const char* ints,
                                   const char* strings, size_t& classes) {
  const auto i = ctx.info().attr_ints(ints);
  const auto s = ctx.info().attr_strings(strings);
  if (i.empty() == s.empty()) return std::nullopt;  // the kernel reports it
  classes = std::max(i.size(), s.size());
  return i.empty() ? DataType::String : DataType::Int64;
}

// LabelEncoder: the values' type (opset 2 on), or the other of string and int64 (opset 1).
std::vector<ValueInfo> label_encoder_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  if (ctx.opset() < 2) {
    return input_shape_as(ctx, x->dtype == DataType::String ? DataType::Int64 : DataType::String);
  }
  const NodeInfo& info = ctx.info();
  if (info.has_attr("values_strings")) return input_shape_as(ctx, DataType::String);
  if (info.has_attr("values_int64s")) return input_shape_as(ctx, DataType::Int64);
  if (info.has_attr("values_floats")) return input_shape_as(ctx, DataType::Float32);
  if (const std::optional<Tensor> t = info.attr_tensor("values_tensor"))
    return input_shape_as(ctx, t->dtype());
  return {};
}

// OneHotEncoder(X): float32, X's shape plus an axis with one entry per category.
std::vector<ValueInfo> one_hot_encoder_rule(const InferenceContext& ctx) {
  size_t categories = 0;
  if (!label_type(ctx, "cats_int64s", "cats_strings", categories)) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(DataType::Float32)};
  std::vector<Dim> out = *xs;
  out.push_back(fixed_dim(static_cast<int64_t>(categories)));
  return {tensor_type(DataType::Float32, out)};
}

// ArrayFeatureExtractor(X, Y): X with its last axis cut to Y's count of indices; a 1-D X gives
// [1, count].
std::vector<ValueInfo> array_feature_extractor_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>*xs = ctx.shape(0), *ys = ctx.shape(1);
  if (!xs || xs->empty()) return {dtype_only(x->dtype)};
  Dim count = fixed_dim(1);
  for (const Dim& d : ys ? *ys : std::vector<Dim>{Dim{}}) {
    count = count.is_fixed() && d.is_fixed() ? fixed_dim(count.value * d.value) : Dim{};
  }
  std::vector<Dim> out = xs->size() == 1 ? std::vector<Dim>{fixed_dim(1), count} : *xs;
  out.back() = count;
  return {tensor_type(x->dtype, out)};
}

// FeatureVectorizer(inputs...): float32 [rows, sum of inputdimensions].
std::vector<ValueInfo> feature_vectorizer_rule(const InferenceContext& ctx) {
  const std::vector<int64_t> widths = ctx.info().attr_ints("inputdimensions");
  if (widths.size() != ctx.num_inputs()) return {};  // the kernel reports it
  int64_t total = 0;
  for (int64_t w : widths) {
    if (w < 0 || __builtin_add_overflow(total, w, &total)) return {};
  }
  std::optional<Dim> rows = fixed_dim(1);  // no inputs: one row
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const std::optional<Dim> r = rows_of(ctx, i);
    if (!r) return {dtype_only(DataType::Float32)};
    rows = i == 0 || !rows->is_fixed() ? *r : *rows;  // the kernel checks they agree
  }
  return {rows_by(rows, fixed_dim(total), DataType::Float32)};
}

// LinearRegressor(X): float32 [rows, targets].
std::vector<ValueInfo> linear_regressor_rule(const InferenceContext& ctx) {
  return {
      rows_by(rows_of(ctx, 0), fixed_dim(ctx.info().attr_int("targets", 1)), DataType::Float32)};
}

// LinearClassifier(X): Y, one label per row; Z, the scores [rows, width]: one column per row
// of coefficients, two for a single row scoring two classes.
std::vector<ValueInfo> linear_classifier_rule(const InferenceContext& ctx) {
  size_t classes = 0;
  const std::optional<DataType> labels =
      label_type(ctx, "classlabels_ints", "classlabels_strings", classes);
  if (!labels) return {};
  const std::optional<Dim> rows = rows_of(ctx, 0);
  Dim width = classes == 2 ? fixed_dim(2) : Dim{};
  const auto coefficients = static_cast<int64_t>(ctx.info().attr_floats("coefficients").size());
  const std::vector<Dim>* xs = ctx.shape(0);
  const Dim columns = xs ? columns_of(*xs) : Dim{};
  if (columns.is_fixed() && columns.value > 0 && coefficients % columns.value == 0) {
    const int64_t outputs = coefficients / columns.value;
    width = fixed_dim(outputs == 1 && classes == 2 ? 2 : outputs);
  }
  return {rows ? tensor_type(*labels, {*rows}) : dtype_only(*labels),
          rows_by(rows, width, DataType::Float32)};
}

// TreeEnsemble(X): X's type, [rows, n_targets].
std::vector<ValueInfo> tree_ensemble_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  return {rows_by(rows_of(ctx, 0), fixed_dim(ctx.info().required_int("n_targets")), x->dtype)};
}

// TreeEnsembleRegressor(X): float32 [rows, n_targets].
std::vector<ValueInfo> tree_ensemble_regressor_rule(const InferenceContext& ctx) {
  return {
      rows_by(rows_of(ctx, 0), fixed_dim(ctx.info().attr_int("n_targets", 1)), DataType::Float32)};
}

// TreeEnsembleClassifier(X): Y, one label per row; Z, float32 [rows, classes] (two columns
// for a single class: not-the-class and the class).
std::vector<ValueInfo> tree_ensemble_classifier_rule(const InferenceContext& ctx) {
  size_t classes = 0;
  const std::optional<DataType> labels =
      label_type(ctx, "classlabels_int64s", "classlabels_strings", classes);
  if (!labels) return {};
  const std::optional<Dim> rows = rows_of(ctx, 0);
  const auto width = static_cast<int64_t>(classes == 1 ? 2 : classes);
  return {rows ? tensor_type(*labels, {*rows}) : dtype_only(*labels),
          rows_by(rows, fixed_dim(width), DataType::Float32)};
}

}  // namespace

KILN_OP_DEFS(ml);
void define_ml_ops(OpDefs& defs) {
  for (const char* op : {"Binarizer", "Imputer"}) defs.define(kMl, op).infer = same_as_input0;
  for (const char* op : {"Normalizer", "Scaler"}) defs.define(kMl, op).infer = float_rule;
  defs.define(kMl, "CategoryMapper").infer = category_mapper_rule;
  defs.define(kMl, "LabelEncoder").infer = label_encoder_rule;
  defs.define(kMl, "OneHotEncoder").infer = one_hot_encoder_rule;
  defs.define(kMl, "ArrayFeatureExtractor").infer = array_feature_extractor_rule;
  defs.define(kMl, "FeatureVectorizer").infer = feature_vectorizer_rule;
  defs.define(kMl, "LinearRegressor").infer = linear_regressor_rule;
  defs.define(kMl, "LinearClassifier").infer = linear_classifier_rule;
  defs.define(kMl, "TreeEnsemble").infer = tree_ensemble_rule;
  defs.define(kMl, "TreeEnsembleRegressor").infer = tree_ensemble_regressor_rule;
  defs.define(kMl, "TreeEnsembleClassifier").infer = tree_ensemble_classifier_rule;
}

}  // namespace kiln
