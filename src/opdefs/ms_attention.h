// ONNX Runtime's attention operators (com.microsoft): GroupQueryAttention, MultiHeadAttention,
// Attention and EmbedLayerNormalization. Their attributes, parsed once here for the CPU kernels
// and the shape rules alike (ONNX Runtime's docs/ContribOperators.md gives the semantics).
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

class NodeInfo;

// GroupQueryAttention(query, key, value, past_key, past_value, seqlens_k, total_sequence_length,
// cos_cache, sin_cache, position_ids, attention_bias, ...) -> output, present_key,
// present_value.
struct GroupQueryAttentionAttrs {
  int64_t num_heads = 0, kv_num_heads = 0;
  float scale = 0.0f;  // 0: 1 / sqrt(head_size)
  float softcap = 0.0f;
  bool causal = true;
  int64_t local_window_size = -1;  // -1: unlimited
  bool do_rotary = false, rotary_interleaved = false;
};
GroupQueryAttentionAttrs parse_group_query_attention_attrs(const NodeInfo& info);

// MultiHeadAttention and Attention share their masking attributes.
struct MultiHeadAttentionAttrs {
  int64_t num_heads = 0;
  float scale = 0.0f;  // 0: 1 / sqrt(head_size)
  float mask_filter_value = -10000.0f;
  bool unidirectional = false;
};
MultiHeadAttentionAttrs parse_multihead_attention_attrs(const NodeInfo& info);

struct MsAttentionAttrs {
  MultiHeadAttentionAttrs common;
  std::vector<int64_t> qkv_hidden_sizes;  // empty: three equal thirds of the weights' width
};
MsAttentionAttrs parse_ms_attention_attrs(const NodeInfo& info);

struct EmbedLayerNormAttrs {
  float epsilon = 1e-12f;
  bool mask_index = true;  // mask_index_type 1: the mask's row sums as output 1
};
EmbedLayerNormAttrs parse_embed_layer_norm_attrs(const NodeInfo& info);

}  // namespace kiln
