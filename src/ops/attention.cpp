// Attention, RotaryEmbedding, LinearAttention, CausalConvWithState, SwiGLU, FlexAttention,
// TensorScatter.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_attention_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
