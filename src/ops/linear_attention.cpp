#include "ops/attention_common.h"
#include "ops/op_registry.h"

namespace kiln {

void register_linear_attention_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
