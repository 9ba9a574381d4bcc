// FlexAttention's modifier subgraphs. Each is a scalar function applied to every position
// (batch b, head h, query q, key k) of the [B, H, L, S] attention matrix:
//   score_mod(score, b, h, q, k) -> score    before the softmax
//   mask_mod(b, h, q, k) -> bool             false masks the position out (mask_value, -inf)
//   prob_mod(prob, b, h, q, k) -> prob       after the softmax
// The indices are int64 scalars; scores and probabilities have the softmax precision's type.
// Models exported for the operator's first draft use another contract, which kiln accepts too:
// a subgraph of one input that maps the whole [B, H, L, S] score (or probability) tensor to a
// tensor of the same shape; a mask_mod of that form returns the masked scores.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/op_context.h"
#include "kernels/subgraph.h"
#include "kiln/dtype.h"

namespace kiln {

struct FlexDims {
  int64_t batch = 0, heads = 0, q_len = 0, kv_len = 0;
  int64_t count() const { return batch * heads * q_len * kv_len; }
};

class FlexModifier {
 public:
  enum class Kind { Score, Mask, Prob };

  FlexModifier(const ir::Graph& graph, const NodeInfo& info, Kind kind);

  // Applies the modifier to `values` ([B, H, L, S] float32, row-major) in place: a score or
  // probability modifier replaces each value, a mask sets the masked-out ones to mask_value.
  // `value_type` is the element type the subgraph sees (the softmax precision).
  void apply(const OpContext& ctx, size_t own_inputs, const FlexDims& dims, DataType value_type,
             float mask_value, float* values) const;

 private:
  void apply_broadcast(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                       DataType value_type, float mask_value, float* values) const;
  void apply_per_position(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                          DataType value_type, float mask_value, float* values) const;
  // Writes one modifier result (`count` values at `offset`) back into the matrix.
  void store(const Tensor& result, const OpContext& ctx, DataType value_type, float mask_value,
             int64_t offset, int64_t count, float* values) const;

  void apply_whole_tensor(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                          DataType value_type, float* values) const;

  Subgraph subgraph_;
  Kind kind_;
  bool whole_tensor_;  // the one-input contract
  std::string name_;
  // True when every node of the subgraph is an element-wise op with numpy broadcasting: the
  // subgraph then runs once on the whole matrix, with the indices as broadcastable
  // [B,1,1,1], [1,H,1,1], [1,1,L,1] and [1,1,1,S] tensors, which gives the same values as
  // running it per position.
  bool elementwise_;
};

}  // namespace kiln
