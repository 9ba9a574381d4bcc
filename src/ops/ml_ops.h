// Registration of the ai.onnx.ml ops, one function per file; register_ml_ops (in ml.cpp) calls
// each. Every op here lives in the "ai.onnx.ml" domain.
#pragma once

namespace kiln {

class OpRegistry;

inline constexpr const char* kMlDomain = "ai.onnx.ml";

void register_label_encoder_ops(OpRegistry& registry);         // LabelEncoder
void register_tree_ensemble_ops(OpRegistry& registry);         // TreeEnsemble (opset 5)
void register_tree_ensemble_legacy_ops(OpRegistry& registry);  // TreeEnsembleRegressor/Classifier
void register_ml_simple_ops(OpRegistry& registry);   // ArrayFeatureExtractor, Binarizer, ...
void register_ml_linear_ops(OpRegistry& registry);   // LinearRegressor, LinearClassifier
void register_ml_encoder_ops(OpRegistry& registry);  // OneHotEncoder, CategoryMapper

}  // namespace kiln
