// What ONNX Runtime's MultiHeadAttention and Attention (com.microsoft) share on the CPU: the
// masks (a key padding mask or mask_index, the causal mask, attention_bias) folded into one
// additive bias, the key/value cache concatenation, and the attention itself.
//
// Masks follow ONNX Runtime's CPU kernels: a hidden key gets mask_filter_value (not -inf), so
// a query whose keys are all padded averages them; the causal mask hides key j from query i
// when j > past + i.
#pragma once

#include <cstdint>

#include "backends/cpu/attention_kernel.h"
#include "kernels/op_context.h"
#include "kiln/tensor.h"

namespace kiln::msattn {

struct Problem {
  int64_t batch = 0, heads = 0, q_len = 0, past = 0, kv_len = 0;  // kv_len: new keys only
  int64_t head = 0, v_head = 0;
  int64_t total() const { return past + kv_len; }
};

struct Masking {
  const Tensor* mask = nullptr;     // key padding mask / mask_index (int32)
  bool allow_left_padding = false;  // mask_index [2 * batch]: end positions then starts
  bool allow_4d = false;            // mask_index [batch, 1, max_len, max_len]
  const Tensor* attention_bias = nullptr;
  float filter = -10000.0f;
  bool causal = false;
};

// The combined additive bias as a kernel mask view ([batch, 1 or heads, q_len, total]); an
// empty view when there is nothing to add. kiln::Error naming the node for a bad mask.
cpu::MaskView mask_bias(const OpContext& ctx, const Problem& p, const Masking& m);

// The keys (or values) attended to, [batch, heads, past + kv_len, size] contiguous: `past`
// (nullptr: none; else [batch, heads, past, size] floats) followed by `fresh`, a view of the
// new rows. Written into `out` (float scratch or an output's memory) and returned as a view.
cpu::HeadView concat_cache(const Problem& p, const float* past, const cpu::HeadView& fresh,
                           int64_t size, float* out);

// y [batch, q_len, heads * v_head] = attention(q, k, v) with the masking.
void attend(const OpContext& ctx, const Problem& p, float scale, const Masking& m,
            const cpu::HeadView& q, const cpu::HeadView& k, const cpu::HeadView& v, float* y);

}  // namespace kiln::msattn
