// The operator domains beside the default ai.onnx ("" once canonical, see canonical_domain),
// named once for the definitions, the kernels and the passes that key on them.
#pragma once

namespace kiln::ir {

inline constexpr const char* kOnnxMlDomain = "ai.onnx.ml";
inline constexpr const char* kOnnxPreviewDomain = "ai.onnx.preview";
inline constexpr const char* kOnnxTrainingDomain = "ai.onnx.preview.training";
// ONNX Runtime's contrib operators (transformer fusions, quantized matmuls, ...).
inline constexpr const char* kMicrosoftDomain = "com.microsoft";

}  // namespace kiln::ir
