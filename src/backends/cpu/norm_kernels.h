// Float32 row kernels shared by the normalization ops (LayerNorm, RMSNorm, InstanceNorm,
// GroupNorm, BatchNorm, MVN), vectorised with Highway and dispatched at run time. Sums
// accumulate in float lanes over short blocks and add the blocks up in double, which keeps long
// rows accurate without giving up vectorisation.
#pragma once

#include <cstdint>

namespace kiln::cpu {

// Σ x[i]
double sum_f32(const float* x, int64_t n);
// Σ x[i]²
double sum_squares_f32(const float* x, int64_t n);
// Σ (x[i] - center)²
double sum_squared_deviations_f32(const float* x, int64_t n, float center);

// y[i] = x[i] * a + b; x and y may alias.
void scale_shift_f32(const float* x, float* y, int64_t n, float a, float b);
// y[i] = (x[i] * a + b) * scale[i] + bias[i]; bias may be null (no shift). x and y may alias.
void scale_shift_affine_f32(const float* x, float* y, int64_t n, float a, float b,
                            const float* scale, const float* bias);

}  // namespace kiln::cpu
