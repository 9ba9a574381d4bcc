// Operator domains beside the default ai.onnx ("" once canonical, see canonical_domain).
#pragma once

namespace kiln::ir {

// ONNX Runtime's contrib operators (transformer fusions, quantized matmuls, ...).
inline constexpr const char* kMicrosoftDomain = "com.microsoft";

}  // namespace kiln::ir
