// ai.onnx.preview.training: Adagrad, Adam, Momentum.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_training_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
