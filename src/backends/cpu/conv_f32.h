// float32 Conv and ConvTranspose on the CPU, lowered to kiln's GEMM.
//
// Conv, per image and group:  Y_g [M/group, out_size] = W_g [M/group, C/group * taps] * cols
// where cols is the im2col matrix of X_g, built in column chunks that stay in cache. A 1x1
// stride-1 unpadded conv is the GEMM on X itself; a depthwise conv (one input channel per
// group) runs a direct kernel instead.
//
// ConvTranspose is the adjoint: cols [M/group * taps, in_size] = W_g^T X_g, then col2im adds
// the columns onto the output, which starts as the bias.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu/conv_geometry.h"

namespace kiln::cpu {

struct ConvProblem {
  // Conv: image = the input X, window positions = the output Y.
  // ConvTranspose: image = the output Y, window positions = the input X.
  ConvGeometry geometry;
  int64_t batch = 1;
  int64_t in_channels = 0;   // channels of X
  int64_t out_channels = 0;  // channels of Y
  int64_t group = 1;
};

// y = conv(x, w) + bias (bias may be null). x: [batch, in_channels, in...], w: [out_channels,
// in_channels / group, kernel...], y: [batch, out_channels, out...].
void conv_f32(const ConvProblem& p, const float* x, const float* w, const float* bias, float* y);

// y = conv_transpose(x, w) + bias. x: [batch, in_channels, out...] (the window positions),
// w: [in_channels, out_channels / group, kernel...], y: [batch, out_channels, in...].
void conv_transpose_f32(const ConvProblem& p, const float* x, const float* w, const float* bias,
                        float* y);

// Per-thread scratch that grows once to the largest size requested and is then reused, so
// that steady-state runs do not allocate. Slots let one call hold several buffers at once.
enum class ConvScratch : int { kColumns, kInput, kWeights, kBias, kOutput, kCount };
float* conv_scratch(ConvScratch slot, size_t floats);

}  // namespace kiln::cpu
