#include "ops/attention_common.h"
#include "ops/op_registry.h"

namespace kiln {

void register_causal_conv_with_state_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
