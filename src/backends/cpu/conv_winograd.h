// Winograd F(4x4, 3x3) for float32 3x3 convolutions with stride 1 and no dilation (Lavin and
// Gray, "Fast Algorithms for Convolutional Neural Networks"): each 4x4 output tile takes a 6x6
// input tile, so the multiplies become 36 GEMMs [M, C] x [C, tiles] instead of one
// [M, 9 C] x [9 C, 16 tiles]: 2.25 times fewer, plus the tile transforms, which are linear in
// the image size. The weights are transformed once (36 x M x C floats).
//
// The transforms mix values of different magnitudes (the factors reach 1/24 and 8), so results
// differ from the direct convolution by a few units in the sixth significant digit, well within
// a model's float32 tolerance.
#pragma once

#include <cstdint>

#include "backends/cpu/conv_epilogue.h"
#include "opdefs/conv.h"

namespace kiln::cpu {

// Whether the Winograd path pays off for p: one group, a 3x3 kernel with stride and dilation 1,
// enough channels for the 36 GEMMs to run near the GEMM's speed, and enough tiles (a map of
// at least 13 x 13) that the GEMMs' columns fill their register tiles well enough.
bool winograd_applies(const ConvProblem& p);

// The weights transformed for F(4x4, 3x3): u[xi][m][c] = (G w[m][c] G^T)[xi], 36 x M x C floats,
// xi the row-major index in the 6x6 tile.
inline int64_t winograd_weight_floats(int64_t out_channels, int64_t in_channels) {
  return 36 * out_channels * in_channels;
}
void winograd_transform_weights(const float* w, int64_t out_channels, int64_t in_channels,
                                float* u);

// y = activation(conv(x, w) + bias + residual) for p as winograd_applies accepts it, with `u`
// from winograd_transform_weights.
void conv_winograd_f32(const ConvProblem& p, const float* x, const float* u, const float* bias,
                       float* y, const ConvEpilogue& e);

}  // namespace kiln::cpu
