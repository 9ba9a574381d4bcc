// Conversion between ONNX TensorProto messages and kiln::Tensor.
#pragma once

#include <string>

#include "kiln/tensor.h"

namespace onnx {
class TensorProto;
}

namespace kiln::onnx_import {

// Reads a TensorProto; `base_dir` resolves external data; `where` prefixes error messages.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir,
                         const std::string& where);
// Writes a tensor (raw_data form, sub-byte types packed as ONNX stores them).
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);

}  // namespace kiln::onnx_import
