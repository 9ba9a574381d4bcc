// The exact int32 matrix product of two 8-bit operands less their zero points, shared by the
// quantized products that requantize it (QLinearMatMul) or scale it back to float
// (com.microsoft MatMulIntegerToFloat and DynamicQuantizeMatMul).
//
//   acc[m, n] = sum_k (a[m, k] - a_zero_point) * (b[k, n] - b_zero_point)
//
// Shapes follow numpy.matmul (matmul_geometry).
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/tensor.h"
#include "ops/matmul_geometry.h"

namespace kiln {

// The int32 products of every row of the (broadcast) batch, in `out` ([batch * M, N]). a and b
// are int8 or uint8; za holds one zero point, one per row of A or one per row of every batch
// matrix of A, zb likewise per column of B (integers, as doubles).
void integer_product(const MatMulGeometry& p, const Tensor& a, const Tensor& b,
                     const std::vector<double>& za, const std::vector<double>& zb, int32_t* out);

}  // namespace kiln
