// Direct convolution for layers with few input channels, such as a vision model's first conv
// over 3 colour channels. There the GEMM's inner dimension is only C * kh * kw (27 for a 3x3
// kernel), too short for a GEMM tile to earn back its packing, and im2col would copy every
// input value kh * kw times. Instead a block of output channels times a few vectors of one
// output row stay in registers while every tap adds one broadcast weight times one input vector.
#pragma once

#include "backends/cpu/conv_epilogue.h"
#include "opdefs/conv.h"

namespace kiln::cpu {

// Whether the direct path takes p: one group, a 2-D kernel up to 16 x 16 over at most 4 input
// channels, stride 1 or 2, no dilation, output rows of at least 16 columns and at least 4
// output channels.
bool direct_conv_applies(const ConvProblem& p);

// y = activation(conv(x, w) + bias + residual) for p as direct_conv_applies accepts it (bias
// may be null). Layouts as conv_f32's.
void conv_direct_f32(const ConvProblem& p, const float* x, const float* w, const float* bias,
                     float* y, const ConvEpilogue& e);

}  // namespace kiln::cpu
