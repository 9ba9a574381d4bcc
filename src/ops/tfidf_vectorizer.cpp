// TfIdfVectorizer: counts the n-grams of a pool (int64s or strings) in each row of a [C] or
// [B, C] input and writes them, weighted by mode (TF, IDF, TFIDF), into the columns that
// ngram_indexes names.
//
// The pool becomes a trie at load: each path from the root spells an n-gram, and the node at
// its end holds the output column. An n-gram may skip up to max_skip_count items between
// consecutive elements; unigrams are counted only once, not once per skip distance.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/string_ops.h"

namespace kiln {
namespace {

enum class Weighting { kTF, kIDF, kTFIDF };

template <class Key>
struct NgramTrie {
  struct TrieNode {
    std::map<Key, int32_t> children;  // key -> index into nodes
    int64_t column = -1;              // output column of the n-gram ending here, -1 if none
  };
  std::vector<TrieNode> nodes{TrieNode{}};  // nodes[0] is the root

  // Walks (and grows) the trie along `ngram`; returns its last node.
  int32_t insert(const Key* ngram, size_t n) {
    int32_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      auto it = nodes[at].children.find(ngram[i]);
      if (it == nodes[at].children.end()) {
        const auto next = static_cast<int32_t>(nodes.size());
        nodes[at].children.emplace(ngram[i], next);
        nodes.emplace_back();
        at = next;
      } else {
        at = it->second;
      }
    }
    return at;
  }
  int32_t child(int32_t at, const Key& key) const {
    auto it = nodes[at].children.find(key);
    return it == nodes[at].children.end() ? -1 : it->second;
  }
};

struct TfIdfSpec {
  Weighting weighting = Weighting::kTF;
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  int64_t output_size = 0;
  std::vector<float> weights;  // per output column; empty means all 1
  bool string_pool = false;
  std::variant<NgramTrie<int64_t>, NgramTrie<std::string>> trie;
};

// Puts the pool's n-grams of sizes [min_gram, max_gram] into the trie. ngram_counts[k] is where
// the (k+1)-grams start in the pool; the i-th n-gram of the pool (over all sizes) goes to output
// column ngram_indexes[i].
template <class Key>
NgramTrie<Key> build_trie(const NodeInfo& info, const std::vector<Key>& pool,
                          const std::vector<int64_t>& ngram_counts,
                          const std::vector<int64_t>& ngram_indexes, int64_t min_gram,
                          int64_t max_gram) {
  NgramTrie<Key> trie;
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
      const int32_t node = trie.insert(pool.data() + at, static_cast<size_t>(n));
      trie.nodes[node].column = ngram_indexes[ngram_number];
    }
  }
  return trie;
}

// Adds the pool n-grams found in one row of `length` items (item(i) is the i-th) to `counts`.
template <class Key, class Item>
void count_ngrams(const TfIdfSpec& spec, const NgramTrie<Key>& trie, int64_t length, Item item,
                  int64_t* counts) {
  int64_t shortest = spec.min_gram;
  // A gap as long as the row fits no n-gram of two or more items, so larger skip counts add
  // nothing: bounding them keeps a huge max_skip_count from looping (nearly) forever.
  const int64_t max_skip = std::min(spec.max_skip, length);
  for (int64_t skip = 1; skip <= max_skip + 1; ++skip) {
    // The span of the shortest n-gram at this skip; one longer than the row fits nowhere (and
    // a huge min_gram_length would overflow the product).
    int64_t span = 0;
    const bool fits = !__builtin_mul_overflow(skip, shortest - 1, &span) && span < length;
    for (int64_t start = 0; fits && start + span < length; ++start) {
      int32_t node = 0;
      int64_t at = start;
      for (int64_t n = 1; n <= spec.max_gram && at < length; ++n, at += skip) {
        node = trie.child(node, item(at));
        if (node < 0) break;
        const int64_t column = trie.nodes[node].column;
        if (n >= shortest && column >= 0) ++counts[column];
      }
    }
    // A unigram is the same whatever the skip distance: count it in the first pass only.
    if (shortest == 1) {
      shortest = 2;
      if (shortest > spec.max_gram) break;
    }
  }
}

void run_tfidf(const TfIdfSpec& spec, OpContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape& shape = x.shape();
  if (shape.size() > 2) ctx.fail("X must have shape [C] or [B, C], got " + shape.to_string());
  const bool batched = shape.size() == 2;
  const int64_t rows = batched ? shape[0] : 1;
  const int64_t length = shape.empty() ? 1 : shape[shape.size() - 1];
  const int64_t columns = spec.output_size;
  // The output and the counts are sized by the node's attributes, not by its input: both go
  // through the worker's memory budget, output first, so an oversized node is an error naming
  // it before anything large is allocated.
  const Shape out_shape = batched ? Shape{rows, columns} : Shape{columns};
  float* out = ctx.allocate_output(0, DataType::Float32, out_shape).mutable_data<float>();
  Tensor counts = Tensor::zeros(DataType::Int64, out_shape);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t* row_counts = counts.mutable_data<int64_t>() + r * columns;
    const int64_t first = r * length;
    if (spec.string_pool) {
      if (x.dtype() != DataType::String) {
        ctx.fail("X must be a string tensor for a pool of strings, got " +
                 std::string(dtype_name(x.dtype())));
      }
      const std::string* in = x.data<std::string>() + first;
      count_ngrams(
          spec, std::get<NgramTrie<std::string>>(spec.trie), length,
          [in](int64_t i) -> const std::string& { return in[i]; }, row_counts);
    } else if (x.dtype() == DataType::Int64) {
      const int64_t* in = x.data<int64_t>() + first;
      count_ngrams(
          spec, std::get<NgramTrie<int64_t>>(spec.trie), length, [in](int64_t i) { return in[i]; },
          row_counts);
    } else if (x.dtype() == DataType::Int32) {
      const int32_t* in = x.data<int32_t>() + first;
      count_ngrams(
          spec, std::get<NgramTrie<int64_t>>(spec.trie), length,
          [in](int64_t i) { return static_cast<int64_t>(in[i]); }, row_counts);
    } else {
      ctx.fail("X must be an int32 or int64 tensor for a pool of int64s, got " +
               std::string(dtype_name(x.dtype())));
    }
  }
  const int64_t* all_counts = counts.data<int64_t>();
  for (int64_t i = 0; i < rows * columns; ++i) {
    const int64_t count = all_counts[i];
    const float weight = spec.weights.empty() ? 1.0f : spec.weights[i % columns];
    switch (spec.weighting) {
      case Weighting::kTF:
        out[i] = static_cast<float>(count);
        break;
      case Weighting::kIDF:
        out[i] = count > 0 ? weight : 0.0f;
        break;
      case Weighting::kTFIDF:
        out[i] = static_cast<float>(count) * weight;
        break;
    }
  }
}

CpuKernel make_tfidf_vectorizer(const NodeInfo& info) {
  auto spec = std::make_shared<TfIdfSpec>();
  const std::string mode = info.attr_string("mode", "");
  if (mode == "TF") {
    spec->weighting = Weighting::kTF;
  } else if (mode == "IDF") {
    spec->weighting = Weighting::kIDF;
  } else if (mode == "TFIDF") {
    spec->weighting = Weighting::kTFIDF;
  } else {
    info.fail("mode must be TF, IDF or TFIDF, got '" + mode + "'");
  }
  spec->min_gram = info.required_int("min_gram_length");
  spec->max_gram = info.required_int("max_gram_length");
  spec->max_skip = info.required_int("max_skip_count");
  if (spec->min_gram < 1 || spec->max_gram < spec->min_gram) {
    info.fail("gram lengths must satisfy 1 <= min_gram_length <= max_gram_length");
  }
  if (spec->max_skip < 0) info.fail("max_skip_count must not be negative");
  const std::vector<int64_t> ngram_counts = info.required_ints("ngram_counts");
  const std::vector<int64_t> ngram_indexes = info.required_ints("ngram_indexes");
  for (int64_t column : ngram_indexes) {
    // Past 2^31 the output (one column per index) could not be allocated, and column + 1
    // would overflow at the top of the range.
    if (column < 0 || column > INT32_MAX) {
      info.fail("ngram_indexes must be in [0, 2^31), got " + std::to_string(column));
    }
    spec->output_size = std::max(spec->output_size, column + 1);
  }
  spec->weights = info.attr_floats("weights");
  if (!spec->weights.empty() && static_cast<int64_t>(spec->weights.size()) < spec->output_size) {
    info.fail("weights has " + std::to_string(spec->weights.size()) + " entries for an output of " +
              std::to_string(spec->output_size) + " columns");
  }
  const bool has_ints = info.has_attr("pool_int64s");
  const bool has_strings = info.has_attr("pool_strings");
  if (has_ints == has_strings) info.fail("exactly one of pool_int64s and pool_strings is needed");
  spec->string_pool = has_strings;
  if (has_strings) {
    spec->trie = build_trie(info, info.attr_strings("pool_strings"), ngram_counts, ngram_indexes,
                            spec->min_gram, spec->max_gram);
  } else {
    spec->trie = build_trie(info, info.attr_ints("pool_int64s"), ngram_counts, ngram_indexes,
                            spec->min_gram, spec->max_gram);
  }
  return [spec = std::shared_ptr<const TfIdfSpec>(spec)](OpContext& ctx) { run_tfidf(*spec, ctx); };
}

}  // namespace

void register_tfidf_vectorizer_ops(OpRegistry& registry) {
  registry.add("TfIdfVectorizer", make_tfidf_vectorizer);
}

}  // namespace kiln
