// CausalConvWithState's one definition (opset 27): the activation attribute and the input
// checks that resolve a run's sizes, shared by the CPU kernel (ops/causal_conv_with_state.cpp)
// and the GPU-compute kernel. The shape rule is in attention_defs.cpp with the other
// sequence-model ops.
//
// input [batch, channels, length], weight [channels, 1, kernel_size], bias [channels],
// past_state [batch, channels, kernel_size - 1], all of one float type.
#pragma once

#include <cstdint>

#include "kiln/tensor.h"
#include "opdefs/node_inputs.h"

namespace kiln {
class NodeInfo;
}

namespace kiln::causal_conv {

enum InputIndex : size_t { kInput = 0, kWeight = 1, kBias = 2, kPastState = 3 };

struct Attributes {
  bool silu = false;  // activation "silu" (or its alias "swish"); else none
};

Attributes parse_attributes(const NodeInfo& info);

struct Dims {
  int64_t batch = 0, channels = 0, length = 0, kernel = 0;

  int64_t carry() const { return kernel - 1; }  // positions carried to the next call
  Shape state_shape() const { return {batch, channels, kernel - 1}; }
};

// Checks the inputs' types and shapes against each other.
Dims check_inputs(const NodeInputs& ctx);

}  // namespace kiln::causal_conv
