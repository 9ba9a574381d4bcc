// TfIdfVectorizer(X [C] or [B, C]) -> float32 [W] or [B, W]: counts, in each row of X, the
// n-grams of a pool (int64s or strings) and writes them, weighted by mode (TF, IDF, TFIDF), into
// the columns that ngram_indexes names; W is one past the largest of them. Its attributes, the
// pool's n-grams (validated, of the lengths the node counts, each once) and the layout of a run
// are shared by the CPU kernel (which walks a trie of the n-grams) and the GPU one (which counts
// each column's n-grams).
//
// What counts as a match: an n-gram of n >= 2 items at each start and each skip distance s in
// 1..max_skip_count + 1 (consecutive items s apart, all inside the row); a unigram once per
// position, whatever the skip distance. A column then holds its count (TF), its weight when the
// count is positive and 0 otherwise (IDF), or count * weight (TFIDF), the weight 1 without a
// weights attribute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

// The Vulkan shader takes these values as its mode codes: append only.
enum class TfIdfWeighting : uint32_t { kTF, kIDF, kTFIDF };

// One n-gram the node counts: `length` pool items from `offset`, counted into `column`.
struct TfIdfNgram {
  int64_t offset = 0;
  int64_t length = 0;
  int64_t column = 0;
};

struct TfIdfAttrs {
  TfIdfWeighting weighting = TfIdfWeighting::kTF;
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  int64_t columns = 0;         // the output's width
  std::vector<float> weights;  // per column; empty means all 1
  bool string_pool = false;
  std::vector<int64_t> pool_ints;  // the pool: pool_int64s, or pool_strings when string_pool
  std::vector<std::string> pool_strings;
  // The pool's n-grams of lengths min_gram..max_gram in pool order, each distinct n-gram once:
  // one the pool repeats counts into the column of its last occurrence.
  std::vector<TfIdfNgram> ngrams;
};

// kiln::Error naming the node for a mode other than TF, IDF or TFIDF, gram lengths outside
// 1 <= min <= max, a negative skip count, ngram_indexes outside [0, 2^31), fewer weights than
// columns, not exactly one pool, or ngram_counts that do not cut the pool into whole n-grams.
TfIdfAttrs parse_tfidf_attrs(const NodeInfo& info);

// The output's width alone (shape inference): kiln::Error for an index outside [0, 2^31).
int64_t tfidf_columns(const NodeInfo& info);

// A run: X as `rows` rows of `length` items (a scalar is one row of one item).
struct TfIdfLayout {
  int64_t rows = 1, length = 1;
  Shape output;  // [W], or [B, W] for a 2-D X
};

// kiln::Error naming the node for X of rank above 2, or of a dtype the pool does not take
// (strings for a pool of strings, int32 or int64 for one of int64s).
TfIdfLayout resolve_tfidf(const NodeInputs& inputs, const TfIdfAttrs& attrs);

}  // namespace kiln
