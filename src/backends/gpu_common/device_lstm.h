// The LSTM subset both GPU backends run natively: layout 0, no clip, no input_forget, and the
// default activations (Sigmoid, Tanh, Tanh). The step kernels hard-code that cell; every other
// LSTM node stays on the CPU with the reason this gives.
#pragma once

#include <string>

#include "kernels/op_registry.h"
#include "opdefs/recurrent.h"

namespace kiln {

// Why the node is outside the GPU LSTM subset, naming the attribute; empty when it is inside.
std::string lstm_outside_gpu_subset(const NodeInfo& info,
                                    const recurrent::RecurrentAttributes& attrs);

}  // namespace kiln
