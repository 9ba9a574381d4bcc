// Einsum: parsing of the equation (once, at load time) and a general contraction over any
// number of operands, with repeated labels (diagonals), ellipsis broadcasting and implicit or
// explicit output. Two-operand float32 contractions that are batched matrix products go
// through the GEMM.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "kiln/tensor.h"

namespace kiln::cpu {

// Label ids: 'A'..'Z' are 0..25 and 'a'..'z' 26..51 (ASCII order, which is the order of the
// implicit output); kEllipsis stands for "...".
inline constexpr int kEinsumLetters = 52;
inline constexpr int kEllipsis = -1;

struct EinsumEquation {
  std::vector<std::vector<int>> terms;  // one per operand
  std::vector<int> output;              // explicit, or derived as numpy does
  bool explicit_output = false;
};

// kiln::Error describing what is wrong with the equation.
EinsumEquation parse_einsum(std::string_view equation, size_t num_inputs);

// The output shape for these operand shapes; kiln::Error when they do not fit the equation.
Shape einsum_output_shape(const EinsumEquation& eq, std::span<const Tensor* const> inputs);

// Computes the contraction into `output` (allocated with einsum_output_shape's shape and the
// operands' common type).
void einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs, Tensor& output);

}  // namespace kiln::cpu
