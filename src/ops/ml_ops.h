// Registration of the ai.onnx.ml ops, one function per file; register_ml_ops (in ml.cpp) calls
// each. Every op here lives in the "ai.onnx.ml" domain.
#pragma once

namespace kiln {

class OpRegistry;

inline constexpr const char* kMlDomain = "ai.onnx.ml";

}  // namespace kiln
