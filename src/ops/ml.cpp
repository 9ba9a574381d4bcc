// ai.onnx.ml: LabelEncoder, TreeEnsemble, ArrayFeatureExtractor, Binarizer, ....
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_ml_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
