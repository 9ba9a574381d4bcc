// Attention (opset 23, 24): the attributes and the geometry of Q, K, V and the key/value cache,
// shared by the CPU kernel and shape inference so that both give the same output shapes.
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// Where element (b, h, s, d) of an Attention operand lies: b * batch + h * head + s * row + d.
struct HeadStrides {
  int64_t batch = 0, head = 0, row = 0;
};

// The strides of [batch, seq, heads * size] (packed: the 3-D form) or [batch, heads, seq, size].
inline HeadStrides head_strides(bool packed, int64_t heads, int64_t seq, int64_t size) {
  if (packed) return {seq * heads * size, size, heads * size};
  return {heads * seq * size, seq * size, size};
}

struct AttentionAttrs {
  int64_t q_num_heads = 0, kv_num_heads = 0;  // required for 3-D inputs
  bool is_causal = false;
  int qk_output_mode = 0;
  bool has_scale = false;
  float scale = 1.0f;
  float softcap = 0.0f;
};

AttentionAttrs parse_attention_attrs(const NodeInfo& info);

// Q, K and V's geometry in the 4-D terms [batch, heads, seq, size].
struct AttentionGeometry {
  bool packed = false;  // 3-D inputs: [batch, seq, heads * size]
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, new_kv_len = 0, past_len = 0;
  int64_t head_size = 0, v_head_size = 0;

  int64_t total() const { return past_len + new_kv_len; }  // keys attended to
  Shape y_shape() const {
    return packed ? Shape{batch, q_len, q_heads * v_head_size}
                  : Shape{batch, q_heads, q_len, v_head_size};
  }
  // present_key (size head_size) and present_value (v_head_size).
  Shape present_shape(int64_t size) const { return Shape{batch, kv_heads, total(), size}; }
  Shape scores_shape() const { return Shape{batch, q_heads, q_len, total()}; }
};

// The attention mask seen as [batch, q_heads, q_len, columns]: element (b, h, i, j) at
// b * batch + h * head + i * row + j of the mask's data (a stride is 0 along a broadcast
// dimension); keys at and beyond `columns` are hidden.
struct AttentionMaskLayout {
  int64_t batch = 0, head = 0, row = 0, columns = 0;
};

// Checks that a mask of shape `mask` (rank 1 to 4, numpy broadcasting from the right) fits the
// geometry; kiln::Error naming `node` otherwise.
AttentionMaskLayout resolve_attention_mask(const ir::Node& node, const AttentionGeometry& g,
                                           const Shape& mask);

// Checks Q, K, V (and past_key / past_value when given) against each other and the
// attributes; kiln::Error naming `node` for shapes the op rejects.
AttentionGeometry resolve_attention(const ir::Node& node, const AttentionAttrs& a, const Shape& qs,
                                    const Shape& ks, const Shape& vs, const Shape* past_key,
                                    const Shape* past_value);

}  // namespace kiln
