// Reading sequence and optional values from their ONNX protobuf files.
#pragma once

#include <string>
#include <string_view>

#include "kiln/tensor.h"

namespace kiln::onnx_import {

// Parses a serialized SequenceProto (kind Sequence) or OptionalProto (kind Optional). `where`
// names the file in errors.
Tensor value_from_proto_bytes(std::string_view bytes, ValueKind kind, const std::string& base_dir,
                              const std::string& where);

}  // namespace kiln::onnx_import
