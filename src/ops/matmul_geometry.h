// The numpy.matmul geometry every matrix product op shares (MatMul, FusedMatMul, MatMulInteger,
// QLinearMatMul, MatMulIntegerToFloat, DynamicQuantizeMatMul): 1-D operands are promoted to
// matrices and the promoted axis dropped from the output, batch dimensions broadcast.
#pragma once

#include <cstdint>

#include "kernels/op_context.h"
#include "kiln/tensor.h"

namespace kiln {

struct MatMulGeometry {
  Shape batch;                             // broadcast batch dimensions
  Shape a_batch_strides, b_batch_strides;  // element strides of each operand's matrices (0 where
                                           // the operand is broadcast)
  int64_t M = 1, K = 1, N = 1;
  Shape out;
  bool b_has_batch = false;  // B has batch dimensions of its own (else one B for every batch)
};

// ctx.fail for scalars, differing inner dimensions or batches that do not broadcast.
MatMulGeometry matmul_geometry(const OpContext& ctx, const Shape& a, const Shape& b);

// Where the matrices of batch i (row-major over g.batch) start in A and B, in elements.
struct BatchOffsets {
  int64_t a = 0, b = 0;
};
BatchOffsets batch_offsets(const MatMulGeometry& g, int64_t i);

}  // namespace kiln
