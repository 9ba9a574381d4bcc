// Constant's value, defined once for its shape rule, the CPU kernel and the GPU backends: the
// tensor of whichever value attribute the node has (exactly one).
#pragma once

#include "kiln/tensor.h"

namespace kiln {

class NodeInfo;

// kiln::Error naming the node unless exactly one value attribute is set, or for a sparse_value.
Tensor parse_constant_value(const NodeInfo& info);

}  // namespace kiln
