// TreeEnsembleRegressor and TreeEnsembleClassifier (ai.onnx.ml opsets 1-3), evaluated by the
// shared tree-ensemble evaluator (tree_ensemble.h).
#include "ops/ml_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_tree_ensemble_legacy_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
