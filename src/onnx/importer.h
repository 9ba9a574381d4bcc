// ONNX ModelProto -> kiln IR. Knows nothing of backends.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ir/graph.h"

namespace kiln::onnx_import {

// Parses and checks a serialized model. `source` names it in messages (usually the path);
// `base_dir` resolves external data. Throws kiln::Error for anything malformed.
// `release_bytes`, when given, is called once the bytes are parsed and no longer read: a caller
// that owns them frees them there, so that the weights are held at most twice at once (the
// parsed message's copy and the model's), not three times with the file's bytes.
std::shared_ptr<ir::Model> import_model(const void* data, size_t size, const std::string& source,
                                        const std::string& base_dir,
                                        const std::function<void()>& release_bytes = {});

// Parses a serialized FunctionProto (the spec's function bodies kiln carries).
ir::Function import_function(const void* data, size_t size, const std::string& source);

}  // namespace kiln::onnx_import
