// DFT, STFT, window functions, MelWeightMatrix.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_signal_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
