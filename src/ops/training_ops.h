// Pieces of the training family shared beyond training.cpp: the kernel of the helper op the
// Gradient expansion emits (opdefs/training_defs.h).
#pragma once

#include "opdefs/training_defs.h"
#include "ops/op_registry.h"

namespace kiln {

void register_sum_to_shape(OpRegistry& registry);

}  // namespace kiln
