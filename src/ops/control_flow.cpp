// If, Loop, Scan.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_control_flow_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
