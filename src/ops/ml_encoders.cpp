// OneHotEncoder and CategoryMapper (ai.onnx.ml).
#include "ops/ml_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_ml_encoder_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
