// String ops: StringConcat and RegexFullMatch keep (broadcast) shapes; StringNormalizer and
// StringSplit size an axis by what the strings hold, known only at run time; TfIdfVectorizer's
// width comes from its n-gram table.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"
#include "opdefs/tfidf_vectorizer.h"

namespace kiln {
namespace {

// StringConcat(X, Y): the broadcast of both.
std::vector<ValueInfo> string_concat_rule(const InferenceContext& ctx) {
  const auto shape = broadcast_shapes(ctx, 0);
  return {shape ? tensor_type(DataType::String, *shape) : dtype_only(DataType::String)};
}

// RegexFullMatch: one bool per string.
std::vector<ValueInfo> regex_full_match_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* xs = ctx.shape(0);
  return {xs ? tensor_type(DataType::Bool, *xs) : dtype_only(DataType::Bool)};
}

// StringNormalizer(X [C] or [1, C]): X's rank, as many strings as survive the stopwords.
std::vector<ValueInfo> string_normalizer_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* xs = ctx.shape(0);
  if (xs && xs->size() == 1) return {tensor_type(DataType::String, {Dim{}})};
  if (xs && xs->size() == 2) return {tensor_type(DataType::String, {fixed_dim(1), Dim{}})};
  return {dtype_only(DataType::String)};  // the kernel rejects other ranks
}

// StringSplit(X): Y is X's shape plus an axis as wide as the longest split; Z (int64) counts
// each string's pieces, X's shape.
std::vector<ValueInfo> string_split_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(DataType::String), dtype_only(DataType::Int64)};
  std::vector<Dim> y = *xs;
  y.push_back(Dim{});
  return {tensor_type(DataType::String, y), tensor_type(DataType::Int64, *xs)};
}

// TfIdfVectorizer(X [C] or [B, C]): float32 [B,] width, the width one past the largest of
// ngram_indexes (opdefs/tfidf_vectorizer.h; an index out of range throws, and the kernel reports
// it).
std::vector<ValueInfo> tfidf_rule(const InferenceContext& ctx) {
  const int64_t width = tfidf_columns(ctx.info());
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() > 2) return {dtype_only(DataType::Float32)};
  if (xs->size() == 2) return {tensor_type(DataType::Float32, {(*xs)[0], fixed_dim(width)})};
  return {tensor_type(DataType::Float32, {fixed_dim(width)})};
}

}  // namespace

KILN_OP_DEFS(string);
void define_string_ops(OpDefs& defs) {
  defs.define("StringConcat").infer = string_concat_rule;
  defs.define("RegexFullMatch").infer = regex_full_match_rule;
  defs.define("StringNormalizer").infer = string_normalizer_rule;
  defs.define("StringSplit").infer = string_split_rule;
  defs.define("TfIdfVectorizer").infer = tfidf_rule;
}

}  // namespace kiln
