// RandomUniform, RandomNormal, their -Like forms, Bernoulli, Multinomial.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_random_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
