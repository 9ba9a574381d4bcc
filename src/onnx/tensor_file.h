// Tensor files (.npy and ONNX TensorProto) read from memory: what load_tensor does after
// reading the file, kept separate so that it can be fuzzed without touching the disk.
#pragma once

#include <string>
#include <string_view>

#include "kiln/tensor.h"

namespace kiln::onnx_import {

enum class TensorFileFormat { Npy, Proto };

// `where` names the bytes in errors; `base_dir` is where a TensorProto's external data lives.
Tensor parse_tensor_file(const std::string& bytes, TensorFileFormat format, ValueKind kind,
                         const std::string& base_dir, const std::string& where);

}  // namespace kiln::onnx_import
