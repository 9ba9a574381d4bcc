// kiln::FusedAttention: scaled dot-product attention that exporters spell op by op, as one op, so
// the CPU runs it head by head (cpu::attention_f32) without writing the scores out, and reads
// and writes through strides what Transposes used to move. The CPU worker's load-time pass
// (passes/fuse_attention.cpp) emits it for
//   MatMul(Q, K^T) [-> Mul | Div by a constant] [-> Add(·, mask)] -> Softmax(last axis)
//     -> MatMul(·, V) [-> Transpose keeping the last axis]
// with Q, K^T and V each possibly from a Transpose and Q, K^T possibly scaled by a constant.
//
//   inputs:  Q, K, V, mask (optional: "")
//   outputs: Y = Transpose(softmax(scale * q k^T + mask) v, y_perm)
//   attributes:
//     scale: the scores' factor (default 1)
//     q_perm, k_perm, v_perm: the Transpose that turns each input into its operand:
//       q [..., q_len, head_size], k [..., kv_len, head_size] (the keys, not K^T) and
//       v [..., kv_len, v_head_size]; absent: the input as it is
//     y_perm: the Transpose applied to the result [..., q_len, v_head_size]; it must keep the
//       last axis last; absent: none
//
// The operands' leading (batch) axes and the mask's broadcast with numpy rules as MatMul and Add
// do; the mask broadcasts to the scores [..., q_len, kv_len] without growing them. Ranks 2 to 4.
// A row whose mask is -inf everywhere gives zeros, not the NaNs of the op-by-op spelling.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "kiln/shape.h"
#include "opdefs/training_defs.h"  // kKilnDomain

namespace kiln {

class NodeInfo;

inline constexpr const char* kFusedAttentionOp = "FusedAttention";

struct FusedAttentionAttrs {
  float scale = 1.0f;
  std::vector<int64_t> q_perm, k_perm, v_perm, y_perm;  // empty: identity
};

FusedAttentionAttrs parse_fused_attention_attrs(const NodeInfo& info);

// Element (b, h, r, c) of an operand, its batch axes broadcast to [batch, heads], lies at
// b * batch + h * head + r * row + c * column (stride 0 along a broadcast axis).
struct AttentionStrides {
  int64_t batch = 0, head = 0, row = 0, column = 0;
};

struct FusedAttentionGeometry {
  int64_t batch = 1, heads = 1;  // the broadcast batch axes (1 where there are fewer than two)
  int64_t q_len = 0, kv_len = 0, head_size = 0, v_head_size = 0;
  AttentionStrides q, k, v, mask, y;
  Shape y_shape;
};

// kiln::Error naming `node` for ranks outside 2..4, perms that are not permutations of their
// input's axes, a y_perm that moves the last axis, and shapes that do not multiply or broadcast.
FusedAttentionGeometry resolve_fused_attention(const ir::Node& node, const FusedAttentionAttrs& a,
                                               const Shape& q, const Shape& k, const Shape& v,
                                               const Shape* mask);

}  // namespace kiln
