// RotaryEmbedding (ai.onnx 23, and com.microsoft's): the attributes and the geometry of the
// input and the cos/sin caches, shared by the CPU kernel, GroupQueryAttention's built-in
// rotation and the GPU kernels, so that all of them take the same shapes with the same messages.
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The attributes both domains' RotaryEmbedding share.
struct RotaryAttrs {
  bool interleaved = false;
  int64_t num_heads = 0;
  int64_t rotary_dim = 0;  // 0: the whole head
};
RotaryAttrs parse_rotary_attrs(const NodeInfo& info);

// x is [batch, heads, seq, head_size], or [batch, seq, heads * head_size] when packed; the
// first rotary_dim features of each head are rotated.
struct RotaryGeometry {
  bool packed = false;  // 3-D input
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0, rotary_dim = 0;
};

// Sets g.rotary_dim: the attribute's width, or the whole head when it is 0; kiln::Error naming
// `node` when it is odd or wider than the head.
void set_rotary_dim(const ir::Node& node, const RotaryAttrs& a, RotaryGeometry& g);

// The ai.onnx form's geometry of input `x` (4-D, or 3-D with num_heads); kiln::Error naming
// `node` for shapes the op rejects.
RotaryGeometry resolve_rotary(const ir::Node& node, const RotaryAttrs& a, const Shape& x);

// The ai.onnx form's caches: [max_position, >= rotary_dim / 2] indexed by position_ids
// ([batch, seq]) when `position_ids` is given, else [batch, seq, >= rotary_dim / 2], one row per
// token; cos and sin of one shape. kiln::Error naming `node` otherwise.
void check_rotary_caches(const ir::Node& node, const RotaryGeometry& g, const Shape& cos_cache,
                         const Shape& sin_cache, const Shape* position_ids);

}  // namespace kiln
