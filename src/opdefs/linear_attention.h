// LinearAttention's one definition (opset 27): attributes and the input checks that resolve a
// run's sizes, shared by the CPU kernel (ops/linear_attention.cpp) and the GPU-compute kernel.
// The shape rule is in attention_defs.cpp with the other sequence-model ops.
//
// query [batch, seq, q_heads * key_size], key [.., kv_heads * key_size], value
// [.., kv_heads * value_size]; past_state [batch, kv_heads, key_size, value_size]; decay per key
// feature [.., kv_heads * key_size] or per head [.., kv_heads]; beta per head [.., kv_heads] or
// shared [.., 1].
#pragma once

#include <cstdint>

#include "kiln/tensor.h"
#include "opdefs/node_inputs.h"

namespace kiln {
class NodeInfo;
}

namespace kiln::linear_attention {

enum InputIndex : size_t {
  kQuery = 0,
  kKey = 1,
  kValue = 2,
  kPastState = 3,
  kDecay = 4,
  kBeta = 5,
};

enum class UpdateRule : uint8_t { kLinear, kGated, kDelta, kGatedDelta };

inline bool uses_decay(UpdateRule r) {
  return r == UpdateRule::kGated || r == UpdateRule::kGatedDelta;
}
inline bool uses_beta(UpdateRule r) {
  return r == UpdateRule::kDelta || r == UpdateRule::kGatedDelta;
}

struct Attributes {
  int64_t q_heads = 0, kv_heads = 0;
  UpdateRule rule = UpdateRule::kGatedDelta;
  bool has_scale = false;
  float scale = 1.0f;
};

Attributes parse_attributes(const NodeInfo& info);

struct Dims {
  int64_t batch = 0, seq = 0, q_heads = 0, kv_heads = 0, key_size = 0, value_size = 0;
  int64_t decay_width = 0;  // per kv head: key_size or 1 (0 when the rule has no decay)
  int64_t beta_heads = 0;   // kv_heads or 1 (0 when the rule has no beta)

  Shape state_shape() const { return {batch, kv_heads, key_size, value_size}; }
  Shape output_shape() const { return {batch, seq, q_heads * value_size}; }
};

// Checks the inputs' types and shapes against each other and the attributes.
Dims check_inputs(const NodeInputs& ctx, const Attributes& attrs);

// The scale of S^T q: the attribute, else 1 / sqrt(key_size).
float output_scale(const Attributes& attrs, const Dims& dims);

}  // namespace kiln::linear_attention
