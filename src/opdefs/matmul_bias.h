// kiln::MatMulBias: a MatMul whose output then gets a per-column bias added, in one op, so the
// CPU adds the bias while each output tile is still in registers instead of re-reading the
// product in an Add. The CPU worker's load-time pass (passes/fuse_matmul_bias.cpp) emits it for
//   MatMul(A, B) -> Add(·, bias)      (or Add(bias, ·))
// with B a constant float32 matrix [K, N] and bias a constant float32 [N], when nothing else
// reads the product (the Linear layer exporters write for 3-D activations, which Gemm cannot
// take).
//
//   inputs:  A, B, bias
//   outputs: Y = MatMul(A, B) + bias, MatMul's shape and type
#pragma once

#include "opdefs/training_defs.h"  // kKilnDomain

namespace kiln {

inline constexpr const char* kMatMulBiasOp = "MatMulBias";

}  // namespace kiln
