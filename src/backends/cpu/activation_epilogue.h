// A fused op's activation (opdefs/fused_activation.h) applied to a block of its output: by the
// GEMM's epilogue while the block is in registers (Relu, Clip) or still in cache (the others),
// or by a convolution's own loops.
#pragma once

#include <cstdint>

#include "backends/cpu/gemm.h"
#include "opdefs/fused_activation.h"

namespace kiln::cpu {

// Whether the GEMM's register tile applies `a` itself (Relu, Clip).
bool activation_in_gemm_tile(FusedActivation a);

// Applies a's activation to `rows` rows of `cols` floats, `ld` apart, with the same formulas
// and vector code as the standalone ops, so that fusing does not change the results.
void apply_activation(const ActivationAttrs& a, float* data, int64_t rows, int64_t cols,
                      int64_t ld);

// Sets `ep` to apply `a` (which must outlive the GEMM call): in the register tile, or through
// finish_block.
void set_gemm_activation(const ActivationAttrs& a, GemmEpilogue& ep);

}  // namespace kiln::cpu
