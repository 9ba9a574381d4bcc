// LinearRegressor and LinearClassifier (ai.onnx.ml).
#include "ops/ml_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_ml_linear_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
