#version 450
// TfIdfVectorizer over int32 or int64 items (opdefs/tfidf_vectorizer.h): one invocation per
// output element (row, column) finds the column among those the pool's n-grams count into
// (a binary search), counts each of its n-grams in the row as the definition says (a unigram at
// each position; a longer n-gram at each start and skip distance 1..max_skip + 1), and writes the
// count weighted by the mode. A column no n-gram counts into is weighted as a count of 0.
//
// The table (uint words, built by tfidf_vectorizer.cpp from the definition's n-grams):
//   [0, groups)             the columns, ascending
//   first_at + [0, groups]  each column's n-grams [first[g], first[g + 1])
//   length_at + n-gram      its item count
//   offset_at + n-gram      its first pool item
//   pool_at + 2 * item      the pool's int64 items as (low word, high word)

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weights { float weights[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

// Must match TfIdfPushConstants in tfidf_vectorizer.cpp and kiln::TfIdfWeighting.
layout(push_constant) uniform Params {
  uint count;  // output elements: rows * columns
  uint columns, row_length;
  uint wide;  // 1: X is int64 (two words per item); 0: int32
  uint mode;
  uint has_weights;
  uint max_skip;  // min(max_skip_count, length), as the CPU bounds it
  uint groups;
  uint first_at, length_at, offset_at, pool_at;
} p;
const uint TF = 0, IDF = 1;

// Whether X's item `at` equals pool item `item`, an int32 item compared sign-extended.
bool item_is(uint at, uint item) {
  const uint lo = table[p.pool_at + 2u * item], hi = table[p.pool_at + 2u * item + 1u];
  if (p.wide != 0u) return x[2u * at] == lo && x[2u * at + 1u] == hi;
  const int v = int(x[at]);
  return uint(v) == lo && uint(v >> 31) == hi;
}

// Matches of the n-gram of `n` pool items from `offset` in the row starting at item `row`.
uint count_ngram(uint row, uint n, uint offset) {
  if (p.row_length == 0u) return 0u;
  uint count = 0u;
  const uint skips = n == 1u ? 1u : p.max_skip + 1u;
  for (uint skip = 1u; skip <= skips; ++skip) {
    // Past this distance the n-gram's items no longer fit in the row.
    if (n > 1u && skip > (p.row_length - 1u) / (n - 1u)) break;
    const uint span = (n - 1u) * skip;
    for (uint start = 0u; start + span < p.row_length; ++start) {
      bool match = true;
      for (uint j = 0u; j < n && match; ++j) match = item_is(row + start + j * skip, offset + j);
      if (match) ++count;
    }
  }
  return count;
}

void main() {
  const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint row = i / p.columns, column = i % p.columns;
  uint lo = 0u, hi = p.groups;
  while (lo < hi) {
    const uint mid = (lo + hi) / 2u;
    if (table[mid] < column) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  uint count = 0u;
  if (lo < p.groups && table[lo] == column) {
    const uint end = table[p.first_at + lo + 1u];
    for (uint g = table[p.first_at + lo]; g < end; ++g)
      count += count_ngram(row * p.row_length, table[p.length_at + g], table[p.offset_at + g]);
  }
  const float weight = p.has_weights != 0u ? weights[column] : 1.0;
  y[i] = p.mode == TF ? float(count) : (p.mode == IDF ? (count > 0u ? weight : 0.0)
                                                      : float(count) * weight);
}
