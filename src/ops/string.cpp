// StringConcat, StringSplit, StringNormalizer, RegexFullMatch, TfIdfVectorizer: each family in
// its own file (see string_ops.h).
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/string_ops.h"

namespace kiln {

void register_string_ops(OpRegistry& registry) {
  register_string_concat_split_ops(registry);
  register_string_normalizer_ops(registry);
  register_regex_full_match_ops(registry);
  register_tfidf_vectorizer_ops(registry);
}

}  // namespace kiln
