// Einsum: a general contraction of an equation parsed by its definition (opdefs/einsum.h) over
// any number of operands, with repeated labels (diagonals), ellipsis broadcasting and implicit or
// explicit output. Two-operand float32 contractions that are batched matrix products go
// through the GEMM.
#pragma once

#include <span>
#include <vector>

#include "kiln/tensor.h"
#include "opdefs/einsum.h"

namespace kiln::cpu {

// The output shape for these operand shapes; kiln::Error when they do not fit the equation.
Shape einsum_output_shape(const EinsumEquation& eq, std::span<const Tensor* const> inputs);

// Computes the contraction into `output` (allocated with einsum_output_shape's shape and the
// operands' common type).
void einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs, Tensor& output);

}  // namespace kiln::cpu
