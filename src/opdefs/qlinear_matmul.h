// QLinearMatMul's (and MatMulInteger's) quantization parameters per run, shared by the CPU kernel
// and the GPU ones:
//
//   acc[m, n] = sum_k (a[m, k] - a_zero_point) * (b[k, n] - b_zero_point)     (exact, int32)
//   y[m, n]   = saturate(round_half_even(acc * multiplier[m, n] + y_zero_point))
//
// with multiplier = a_scale * b_scale / y_scale computed in the scales' own precision (float16
// scales give a float16 multiplier, as in ONNX's reference). Scales and zero points are per
// tensor, per row of A or per column of B.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/dtype.h"
#include "opdefs/node_inputs.h"

namespace kiln {

enum QLinearMatMulInput : size_t {
  kQA,
  kQAScale,
  kQAZero,
  kQB,
  kQBScale,
  kQBZero,
  kQYScale,
  kQYZero
};

// The required inputs are there and a and b are int8 or uint8; kiln::Error naming the node
// otherwise. (The operands' shapes are the matmul geometry's to check.)
void check_qlinear_matmul_operands(const NodeInputs& inputs);

struct QLinearMatMulParams {
  DataType out_type = DataType::UInt8;  // y_zero_point's type, a's without it
  std::vector<double> a_zero, b_zero;   // one value, or one per row of A / column of B
  int64_t rows = 1, cols = 1;           // the multipliers' extent (1 where per tensor)
  std::vector<double> multiplier;       // [rows, cols]
  double y_zero = 0;
};

// The parameters for a product of M rows and N columns, read from the host values of the
// scales and zero points; kiln::Error naming the node for types or shapes the op rejects.
QLinearMatMulParams resolve_qlinear_matmul(const NodeInputs& inputs, int64_t M, int64_t N);

// MatMulInteger(A, B, a_zero_point, b_zero_point), the int32 product without requantization.
// A and B must be int8 or uint8; kiln::Error naming the node otherwise.
void check_matmul_integer_operands(const NodeInputs& inputs);
// The zero point of operand A (index 2) or B (index 3), of its operand's type: one value, one per
// row of A (column of B) or one per row (column) of every batch matrix of the operand, as doubles;
// {0} when absent. `lines` is M for A and N for B, `operand_batches` the operand's own number of
// batch matrices. kiln::Error naming the node for another type or size.
std::vector<double> matmul_integer_zero_points(const NodeInputs& inputs, size_t index,
                                               int64_t lines, int64_t operand_batches);

}  // namespace kiln
