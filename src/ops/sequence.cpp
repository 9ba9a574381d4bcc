// Sequence*, SplitToSequence, ConcatFromSequence, Optional*.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_sequence_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
