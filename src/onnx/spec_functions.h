// The function bodies that the ONNX operator schemas define, as kiln carries them: an op that
// kiln has no kernel for, but that the spec defines as a function, is expanded into its body.
#pragma once

#include <string>

#include "ir/graph.h"

namespace kiln::onnx_import {

// The body in force at `opset` (the newest defined at or before it), or nullptr.
const ir::Function* spec_function(const std::string& domain, const std::string& op_type,
                                  int opset);

}  // namespace kiln::onnx_import
