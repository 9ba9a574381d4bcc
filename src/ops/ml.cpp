// ai.onnx.ml: LabelEncoder, TreeEnsemble and its legacy forms, ArrayFeatureExtractor,
// Binarizer, ...: each family in its own file (see ml_ops.h).
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_ops.h"

namespace kiln {

void register_ml_ops(OpRegistry& registry) {
  register_label_encoder_ops(registry);
  register_tree_ensemble_ops(registry);
  register_tree_ensemble_legacy_ops(registry);
  register_ml_simple_ops(registry);
  register_ml_linear_ops(registry);
  register_ml_encoder_ops(registry);
}

}  // namespace kiln
