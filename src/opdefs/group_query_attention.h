// GroupQueryAttention (com.microsoft): the geometry of a run, each sequence's lengths and the
// rotary cache rows, resolved from the inputs the way ONNX Runtime's CPU kernel reads them.
// Shared by the CPU kernel (ops/ms_group_query_attention.cpp has the semantics) and the GPU's,
// so that both accept the same inputs with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "kiln/tensor.h"
#include "opdefs/ms_attention.h"

namespace kiln {

// GroupQueryAttention's inputs by position (`using namespace group_query_attention_input;` where
// they are read).
namespace group_query_attention_input {
enum : size_t {
  kQuery,
  kKey,
  kValue,
  kPastKey,
  kPastValue,
  kSeqlensK,
  kTotalSeqLen,
  kCosCache,
  kSinCache,
  kPositionIds,
  kAttentionBias,
  kHeadSink,
};
}  // namespace group_query_attention_input

struct GroupQueryAttentionGeometry {
  bool packed = false;  // Q, K and V in query's last axis
  int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, head = 0;
  int64_t past_buffer = 0, present_len = 0, total = 0;
};

// query [batch, seq, hidden]; key and value (both or neither) [batch, seq, kv_heads * head];
// past_key and past_value (both or neither) [batch, kv_heads, past, head]; total_sequence_length
// one positive int32 (host data). Shapes only: the element types are the kernels' to check.
// kiln::Error naming `node` otherwise.
GroupQueryAttentionGeometry resolve_group_query_attention(
    const ir::Node& node, const GroupQueryAttentionAttrs& a, const Shape& query, const Shape* key,
    const Shape* value, const Shape* past_key, const Shape* past_value, const Tensor* seqlens_k,
    const Tensor* total_sequence_length);

// Per sequence: its valid keys (seqlens_k[b] + 1) and the keys before its new tokens.
struct GroupQuerySequences {
  std::vector<int64_t> valid, past;
};

// seqlens_k: int32 [batch] (host data), checked against the geometry and the kind of step.
GroupQuerySequences resolve_group_query_sequences(const ir::Node& node,
                                                  const GroupQueryAttentionGeometry& g,
                                                  const Tensor& seqlens_k);

// cos_cache and sin_cache [max_position, rotary_dim / 2], rotary_dim within the head; kiln::Error
// naming `node` otherwise.
void check_group_query_rotary_caches(const ir::Node& node, const GroupQueryAttentionGeometry& g,
                                     const Shape& cos_cache, const Shape& sin_cache);

// The cache row of each new token b * seq + s: position_ids[b, s] when given (an integer tensor
// [batch, seq], host data), else past_b + s (a first prompt's padding tokens take row 1, as ONNX
// Runtime's); each checked below `cache_rows`.
std::vector<int64_t> group_query_rotary_rows(const ir::Node& node,
                                             const GroupQueryAttentionGeometry& g,
                                             const GroupQuerySequences& seqs,
                                             const Tensor* position_ids, int64_t cache_rows);

// attention_bias [batch or 1, num_heads or 1, seq, total_sequence_length]; kiln::Error naming
// `node` otherwise.
void check_group_query_attention_bias(const ir::Node& node, const GroupQueryAttentionGeometry& g,
                                      const Shape& bias);

}  // namespace kiln
