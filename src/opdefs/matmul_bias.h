// The CPU worker's fused linear layers, so that the CPU adds the bias and the residual and
// applies the activation while each output tile is still in registers or in cache, instead of
// re-reading the product in one pass per op. The load-time pass
// (passes/fuse_linear_epilogues.cpp) emits them.
//
// kiln::MatMulBias, for
//   MatMul(A, B) -> [Add(·, bias)] -> [Add(·, Z)] -> [activation]      (at least one of them)
// with B a constant float32 matrix [K, N], bias a constant float32 [N] and Z of the product's
// shape (the Linear layers exporters write for 3-D activations, which Gemm cannot take):
//   inputs:  A, B, bias (optional: ""), Z (optional: "")
//   outputs: Y = activation(MatMul(A, B) + bias + Z), MatMul's shape and type
//   attributes: activation, clip_min, clip_max (opdefs/fused_activation.h)
//
// kiln::FusedGemm, for
//   Gemm -> [Add(·, Z)] -> [activation]          (the Add only where the Gemm has no C)
//   inputs and outputs: Gemm's; a residual Z becomes C, with beta = 1
//   attributes: Gemm's (alpha, beta, transA, transB), and activation, clip_min, clip_max
#pragma once

#include "opdefs/training_defs.h"  // kKilnDomain

namespace kiln {

inline constexpr const char* kMatMulBiasOp = "MatMulBias";
inline constexpr const char* kFusedGemmOp = "FusedGemm";

}  // namespace kiln
