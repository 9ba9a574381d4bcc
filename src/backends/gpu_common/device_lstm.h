// The LSTM subset both GPU backends run natively: no clip, no input_forget, the default
// activations (Sigmoid, Tanh, Tanh), and layout 0 unless the backend also takes layout 1. The
// step kernels hard-code that cell; every other LSTM node stays on the CPU with the reason this
// gives.
#pragma once

#include <string>

#include "kernels/op_registry.h"
#include "opdefs/recurrent.h"

namespace kiln {

// Why the node is outside the GPU LSTM subset, naming the attribute; empty when it is inside.
// `batch_major` says whether the backend takes layout 1 (batch-major X, Y and states) as well.
std::string lstm_outside_gpu_subset(const NodeInfo& info,
                                    const recurrent::RecurrentAttributes& attrs,
                                    bool batch_major = false);

}  // namespace kiln
