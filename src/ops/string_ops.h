// Registration of the string ops, one function per file; register_string_ops (in string.cpp)
// calls each.
#pragma once

namespace kiln {

class OpRegistry;

void register_string_concat_split_ops(OpRegistry& registry);  // StringConcat, StringSplit
void register_string_normalizer_ops(OpRegistry& registry);    // StringNormalizer
void register_regex_full_match_ops(OpRegistry& registry);     // RegexFullMatch (RE2 syntax)
void register_tfidf_vectorizer_ops(OpRegistry& registry);     // TfIdfVectorizer

}  // namespace kiln
