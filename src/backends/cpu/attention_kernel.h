// Float32 scaled dot-product attention over [batch, heads, sequence, head size] operands given
// as strided views, so that the 3-D ([batch, sequence, heads * head size]) and 4-D layouts of
// the ONNX Attention op are both read in place.
//
// For each batch b and query head h (kv head h / (q_heads / kv_heads), grouped-query
// attention):
//
//   scores = scale * Q K^T                       (stage 0)
//   scores = softcap * tanh(scores / softcap)    (stage 1, when softcap > 0)
//   scores = scores + bias                       (stage 2)
//   probs  = softmax(scores) along the keys      (stage 3)
//   Y      = probs V
//
// where bias is the sum of the attention mask (float, broadcast, padded with -inf past its
// last column), the causal mask (key j is hidden from query i when j > i + causal_offset[b])
// the key padding mask (key j is hidden when j >= kv_valid[b]) and, with a causal mask, the local
// window (key j is hidden when j <= i + causal_offset[b] - local_window). A query whose bias row is
// -inf everywhere attends to nothing: its probabilities and output are zero rather than NaN.
#pragma once

#include <cstdint>

namespace kiln::cpu {

// Element (b, h, s, d) of a view lives at data[b * batch + h * head + s * row + d].
struct HeadView {
  const float* data = nullptr;
  int64_t batch = 0, head = 0, row = 0;
};
struct MutableHeadView {
  float* data = nullptr;
  int64_t batch = 0, head = 0, row = 0;
};

// The additive float mask, broadcast to [batch, q_heads, q_len, kv_len]: element (b, h, i, j)
// at data[b * batch + h * head + i * row + j] for j < columns, -inf beyond. data == nullptr
// means no mask.
struct MaskView {
  const float* data = nullptr;
  int64_t batch = 0, head = 0, row = 0;
  int64_t columns = 0;
};

struct AttentionShape {
  int64_t batch = 0, q_heads = 0, kv_heads = 0;
  int64_t q_len = 0, kv_len = 0;  // kv_len counts the past keys too
  int64_t head_size = 0, v_head_size = 0;
};

struct AttentionParams {
  float scale = 1.0f;
  float softcap = 0.0f;                    // 0: none
  const int64_t* causal_offset = nullptr;  // per batch; nullptr: not causal
  const int64_t* kv_valid = nullptr;       // per batch; nullptr: every key is valid
  int64_t local_window = -1;               // keys seen, the diagonal one included; -1: all
  // Where the scores of stage `scores_stage` are copied, as [batch, q_heads, q_len, kv_len]
  // contiguous; nullptr when not wanted.
  float* scores_out = nullptr;
  int scores_stage = 0;
};

void attention_f32(const AttentionShape& shape, const AttentionParams& params, const HeadView& q,
                   const HeadView& k, const HeadView& v, const MaskView& mask,
                   const MutableHeadView& y);

}  // namespace kiln::cpu
