// What a fused Conv (kiln::FusedConv) does to its output after the convolution and the bias:
// add a residual, then apply an activation. Relu and Clip without a residual, and after one,
// go into the GEMM's epilogue (applied while a tile is in registers); the others, which the
// GEMM's tile does not know, are applied to each block of rows right after the GEMM wrote it,
// while it is still in cache (backends/cpu/activation_epilogue.h).
#pragma once

#include <cstdint>

#include "backends/cpu/activation_epilogue.h"
#include "backends/cpu/gemm.h"
#include "opdefs/fused_activation.h"

namespace kiln::cpu {

struct ConvEpilogue : ActivationAttrs {
  const float* residual = nullptr;  // Z: Y's shape, added before the activation

  bool is_identity() const { return residual == nullptr && activation == FusedActivation::kNone; }
  // Whether the GEMM's own epilogue can apply the activation.
  bool activation_in_gemm() const { return activation_in_gemm_tile(activation); }
};

// The GEMM epilogue for a conv block: bias per row (output channel), the residual as beta = 1
// (the caller has copied Z into C), and Relu or Clip.
GemmEpilogue conv_gemm_epilogue(const float* bias, const ConvEpilogue& e);

// Applies e's activation to `rows` rows of `cols` floats, `ld` apart (the residual is not
// added here). `in_gemm` says that the GEMM applied it already (then only those the GEMM's
// tile does not know remain).
void apply_conv_activation(const ConvEpilogue& e, float* data, int64_t rows, int64_t cols,
                           int64_t ld, bool in_gemm);

// Adds `residual` (laid out as data; null: none) to `rows` rows of `cols` floats, `ld` apart,
// then applies e's activation as apply_conv_activation does: for the kernels that write their
// output first, while it is still in cache.
void add_residual_and_activate(const ConvEpilogue& e, float* data, const float* residual,
                               int64_t rows, int64_t cols, int64_t ld, bool in_gemm);

}  // namespace kiln::cpu
