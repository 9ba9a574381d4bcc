// ONNX ModelProto -> kiln IR. Knows nothing of backends.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"

namespace kiln::onnx_import {

// Parses and checks a serialized model. `source` names it in messages (usually the path);
// `base_dir` resolves external data. Throws kiln::Error for anything malformed.
std::shared_ptr<ir::Model> import_model(const void* data, size_t size, const std::string& source,
                                        const std::string& base_dir);

// Parses a serialized FunctionProto (the spec's function bodies kiln carries).
ir::Function import_function(const void* data, size_t size, const std::string& source);

}  // namespace kiln::onnx_import
