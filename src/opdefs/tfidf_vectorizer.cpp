#include "opdefs/tfidf_vectorizer.h"

#include <algorithm>
#include <map>

#include "opdefs/node_info.h"

namespace kiln {
namespace {

// The pool's n-grams of lengths [min_gram, max_gram]. ngram_counts[k] is where the (k+1)-grams
// start in the pool; the i-th n-gram of the pool (over all lengths) goes to output column
// ngram_indexes[i]. A repeated n-gram keeps one entry, at its first place, with the column of its
// last occurrence.
template <class Key>
std::vector<TfIdfNgram> pool_ngrams(const NodeInfo& info, const std::vector<Key>& pool,
                                    const std::vector<int64_t>& ngram_counts,
                                    const std::vector<int64_t>& ngram_indexes, int64_t min_gram,
                                    int64_t max_gram) {
  std::vector<TfIdfNgram> ngrams;
  std::map<std::vector<Key>, size_t> seen;  // n-gram -> its entry in `ngrams`
  const auto pool_size = static_cast<int64_t>(pool.size());
  size_t ngram_number = 0;
  for (size_t k = 0; k < ngram_counts.size(); ++k) {
    const auto n = static_cast<int64_t>(k + 1);
    const int64_t begin = ngram_counts[k];
    const int64_t end = k + 1 < ngram_counts.size() ? ngram_counts[k + 1] : pool_size;
    if (begin < 0 || end < begin || end > pool_size) {
      info.fail("ngram_counts must be non-decreasing offsets into the pool of " +
                std::to_string(pool_size) + " items");
    }
    if ((end - begin) % n != 0) {
      info.fail("the pool's " + std::to_string(n) + "-grams span " + std::to_string(end - begin) +
                " items, not a multiple of " + std::to_string(n));
    }
    for (int64_t at = begin; at < end; at += n, ++ngram_number) {
      if (ngram_number >= ngram_indexes.size()) {
        info.fail("ngram_indexes has fewer entries than the pool has n-grams");
      }
      if (n < min_gram || n > max_gram) continue;
      const int64_t column = ngram_indexes[ngram_number];
      auto [it, inserted] =
          seen.emplace(std::vector<Key>(pool.begin() + at, pool.begin() + at + n), ngrams.size());
      if (inserted) {
        ngrams.push_back({at, n, column});
      } else {
        ngrams[it->second].column = column;
      }
    }
  }
  return ngrams;
}

}  // namespace

int64_t tfidf_columns(const NodeInfo& info) {
  int64_t columns = 0;
  for (int64_t column : info.required_ints("ngram_indexes")) {
    // Past 2^31 the output (one column per index) could not be allocated, and column + 1
    // would overflow at the top of the range.
    if (column < 0 || column > INT32_MAX) {
      info.fail("ngram_indexes must be in [0, 2^31), got " + std::to_string(column));
    }
    columns = std::max(columns, column + 1);
  }
  return columns;
}

TfIdfAttrs parse_tfidf_attrs(const NodeInfo& info) {
  TfIdfAttrs a;
  const std::string mode = info.attr_string("mode", "");
  if (mode == "TF") {
    a.weighting = TfIdfWeighting::kTF;
  } else if (mode == "IDF") {
    a.weighting = TfIdfWeighting::kIDF;
  } else if (mode == "TFIDF") {
    a.weighting = TfIdfWeighting::kTFIDF;
  } else {
    info.fail("mode must be TF, IDF or TFIDF, got '" + mode + "'");
  }
  a.min_gram = info.required_int("min_gram_length");
  a.max_gram = info.required_int("max_gram_length");
  a.max_skip = info.required_int("max_skip_count");
  if (a.min_gram < 1 || a.max_gram < a.min_gram) {
    info.fail("gram lengths must satisfy 1 <= min_gram_length <= max_gram_length");
  }
  if (a.max_skip < 0) info.fail("max_skip_count must not be negative");
  const std::vector<int64_t> ngram_counts = info.required_ints("ngram_counts");
  const std::vector<int64_t> ngram_indexes = info.required_ints("ngram_indexes");
  a.columns = tfidf_columns(info);
  a.weights = info.attr_floats("weights");
  if (!a.weights.empty() && static_cast<int64_t>(a.weights.size()) < a.columns) {
    info.fail("weights has " + std::to_string(a.weights.size()) + " entries for an output of " +
              std::to_string(a.columns) + " columns");
  }
  const bool has_ints = info.has_attr("pool_int64s");
  const bool has_strings = info.has_attr("pool_strings");
  if (has_ints == has_strings) info.fail("exactly one of pool_int64s and pool_strings is needed");
  a.string_pool = has_strings;
  if (has_strings) {
    a.pool_strings = info.attr_strings("pool_strings");
    a.ngrams =
        pool_ngrams(info, a.pool_strings, ngram_counts, ngram_indexes, a.min_gram, a.max_gram);
  } else {
    a.pool_ints = info.attr_ints("pool_int64s");
    a.ngrams = pool_ngrams(info, a.pool_ints, ngram_counts, ngram_indexes, a.min_gram, a.max_gram);
  }
  return a;
}

TfIdfLayout resolve_tfidf(const NodeInputs& inputs, const TfIdfAttrs& attrs) {
  const Tensor& x = inputs.input(0);
  const Shape& shape = x.shape();
  if (shape.size() > 2) inputs.fail("X must have shape [C] or [B, C], got " + shape.to_string());
  if (attrs.string_pool && x.dtype() != DataType::String) {
    inputs.fail("X must be a string tensor for a pool of strings, got " +
                std::string(dtype_name(x.dtype())));
  }
  if (!attrs.string_pool && x.dtype() != DataType::Int64 && x.dtype() != DataType::Int32) {
    inputs.fail("X must be an int32 or int64 tensor for a pool of int64s, got " +
                std::string(dtype_name(x.dtype())));
  }
  TfIdfLayout l;
  const bool batched = shape.size() == 2;
  l.rows = batched ? shape[0] : 1;
  l.length = shape.empty() ? 1 : shape[shape.size() - 1];
  l.output = batched ? Shape{l.rows, attrs.columns} : Shape{attrs.columns};
  return l;
}

}  // namespace kiln
