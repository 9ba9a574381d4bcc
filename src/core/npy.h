// numpy .npy files (format 1.0-3.0, little-endian, C order) <-> kiln::Tensor.
#pragma once

#include <string>

#include "kiln/tensor.h"

namespace kiln {

Tensor read_npy(const std::string& bytes, const std::string& where);
std::string write_npy(const Tensor& tensor);

}  // namespace kiln
