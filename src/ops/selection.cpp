// Unique, Compress, ReverseSequence.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_selection_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
