// TfIdfVectorizer: counts the n-grams of a pool (int64s or strings) in each row of a [C] or
// [B, C] input and writes them, weighted by mode (TF, IDF, TFIDF), into the columns that
// ngram_indexes names.
//
// Its rules (attributes, the pool's n-grams, what counts as a match) are its definition,
// opdefs/tfidf_vectorizer.h. The n-grams become a trie at load: each path from the root spells
// one, and the node at its end holds the output column.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "kernels/op_registry.h"
#include "opdefs/tfidf_vectorizer.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

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
  TfIdfAttrs attrs;
  std::variant<NgramTrie<int64_t>, NgramTrie<std::string>> trie;
};

// The definition's n-grams as a trie: each path from the root spells one.
template <class Key>
NgramTrie<Key> build_trie(const std::vector<Key>& pool, const std::vector<TfIdfNgram>& ngrams) {
  NgramTrie<Key> trie;
  for (const TfIdfNgram& g : ngrams) {
    const int32_t node = trie.insert(pool.data() + g.offset, static_cast<size_t>(g.length));
    trie.nodes[node].column = g.column;
  }
  return trie;
}

// Adds the pool n-grams found in one row of `length` items (item(i) is the i-th) to `counts`.
template <class Key, class Item>
void count_ngrams(const TfIdfAttrs& a, const NgramTrie<Key>& trie, int64_t length, Item item,
                  int64_t* counts) {
  int64_t shortest = a.min_gram;
  // A gap as long as the row fits no n-gram of two or more items, so larger skip counts add
  // nothing: bounding them keeps a huge max_skip_count from looping (nearly) forever.
  const int64_t max_skip = std::min(a.max_skip, length);
  for (int64_t skip = 1; skip <= max_skip + 1; ++skip) {
    // The span of the shortest n-gram at this skip; one longer than the row fits nowhere (and
    // a huge min_gram_length would overflow the product).
    int64_t span = 0;
    const bool fits = !__builtin_mul_overflow(skip, shortest - 1, &span) && span < length;
    for (int64_t start = 0; fits && start + span < length; ++start) {
      int32_t node = 0;
      int64_t at = start;
      for (int64_t n = 1; n <= a.max_gram && at < length; ++n, at += skip) {
        node = trie.child(node, item(at));
        if (node < 0) break;
        const int64_t column = trie.nodes[node].column;
        if (n >= shortest && column >= 0) ++counts[column];
      }
    }
    // A unigram is the same whatever the skip distance: count it in the first pass only.
    if (shortest == 1) {
      shortest = 2;
      if (shortest > a.max_gram) break;
    }
  }
}

void run_tfidf(const TfIdfSpec& spec, OpContext& ctx) {
  const TfIdfAttrs& a = spec.attrs;
  const Tensor& x = ctx.input(0);
  const TfIdfLayout l = resolve_tfidf(NodeInputs{ctx.node(), ctx.inputs()}, a);
  const int64_t columns = a.columns;
  // The output and the counts are sized by the node's attributes, not by its input: both go
  // through the worker's memory budget, output first, so an oversized node is an error naming
  // it before anything large is allocated.
  float* out = ctx.allocate_output(0, DataType::Float32, l.output).mutable_data<float>();
  Tensor counts = Tensor::zeros(DataType::Int64, l.output);
  for (int64_t r = 0; r < l.rows; ++r) {
    int64_t* row_counts = counts.mutable_data<int64_t>() + r * columns;
    const int64_t first = r * l.length;
    if (a.string_pool) {
      const std::string* in = x.data<std::string>() + first;
      count_ngrams(
          a, std::get<NgramTrie<std::string>>(spec.trie), l.length,
          [in](int64_t i) -> const std::string& { return in[i]; }, row_counts);
    } else if (x.dtype() == DataType::Int64) {
      const int64_t* in = x.data<int64_t>() + first;
      count_ngrams(
          a, std::get<NgramTrie<int64_t>>(spec.trie), l.length, [in](int64_t i) { return in[i]; },
          row_counts);
    } else {
      const int32_t* in = x.data<int32_t>() + first;
      count_ngrams(
          a, std::get<NgramTrie<int64_t>>(spec.trie), l.length,
          [in](int64_t i) { return static_cast<int64_t>(in[i]); }, row_counts);
    }
  }
  const int64_t* all_counts = counts.data<int64_t>();
  for (int64_t i = 0; i < l.rows * columns; ++i) {
    const int64_t count = all_counts[i];
    const float weight = a.weights.empty() ? 1.0f : a.weights[i % columns];
    switch (a.weighting) {
      case TfIdfWeighting::kTF:
        out[i] = static_cast<float>(count);
        break;
      case TfIdfWeighting::kIDF:
        out[i] = count > 0 ? weight : 0.0f;
        break;
      case TfIdfWeighting::kTFIDF:
        out[i] = static_cast<float>(count) * weight;
        break;
    }
  }
}

CpuKernel make_tfidf_vectorizer(const NodeInfo& info) {
  auto spec = std::make_shared<TfIdfSpec>();
  spec->attrs = parse_tfidf_attrs(info);
  const TfIdfAttrs& a = spec->attrs;
  if (a.string_pool) {
    spec->trie = build_trie(a.pool_strings, a.ngrams);
  } else {
    spec->trie = build_trie(a.pool_ints, a.ngrams);
  }
  return [spec = std::shared_ptr<const TfIdfSpec>(spec)](OpContext& ctx) { run_tfidf(*spec, ctx); };
}

}  // namespace

KILN_CPU_OPS(tfidf_vectorizer);
void register_tfidf_vectorizer_ops(OpRegistry& registry) {
  registry.add("TfIdfVectorizer", make_tfidf_vectorizer);
}

}  // namespace kiln
