// Registration of the ai.onnx.ml ops, one function per file; register_ml_ops (in ml.cpp) calls
// each. Every op here lives in the "ai.onnx.ml" domain.
#pragma once

#include "ir/domains.h"

namespace kiln {

class OpRegistry;

inline constexpr const char* kMlDomain = ir::kOnnxMlDomain;

}  // namespace kiln
