// Pieces of the training family shared beyond training.cpp: the kernel of the helper op the
// Gradient expansion emits (opdefs/training_defs.h).
#pragma once

#include "kernels/op_registry.h"
#include "opdefs/training_defs.h"

namespace kiln {

void register_sum_to_shape(OpRegistry& registry);

}  // namespace kiln
