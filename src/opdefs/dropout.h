// Dropout's mode for one run, one definition for the CPU kernel and the GPU backends. Before
// opset 12 Dropout runs in inference mode (kiln never trains); from opset 12 the training_mode
// (input 2, default false) and ratio (input 1, default 0.5) inputs decide, and only training mode
// with a nonzero ratio drops elements (a random draw); otherwise the output is the input and the
// mask all true.
#pragma once

#include "opdefs/node_inputs.h"

namespace kiln {

struct DropoutMode {
  bool drop = false;   // training mode with a nonzero ratio
  double ratio = 0.5;  // read only in training mode
};

// `inputs` holds training_mode and ratio as host tensors (they are read only in training mode:
// ratio's value when training_mode is true). kiln::Error naming the node for a training_mode
// that is not one bool, or a ratio that is not one float value.
DropoutMode resolve_dropout_mode(const NodeInputs& inputs, int opset);

}  // namespace kiln
