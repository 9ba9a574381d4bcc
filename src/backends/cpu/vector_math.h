// Vectorised float32 math for the hot element-wise ops (Highway, dispatched at run time to the
// best instruction set the CPU has). Each computes out[i] = f(in[i]) for i < n; in and out may
// alias. Results match the C library to a few ulp, with the same inf/NaN/zero behaviour.
#pragma once

#include <cstdint>

namespace kiln::cpu {

void exp_f32(const float* in, float* out, int64_t n);
void log_f32(const float* in, float* out, int64_t n);
void tanh_f32(const float* in, float* out, int64_t n);
void sigmoid_f32(const float* in, float* out, int64_t n);
// x * sigmoid(x) (SiLU, Swish) in one pass: the same value as sigmoid_f32 followed by a multiply.
void silu_f32(const float* in, float* out, int64_t n);
// erf to a few ulp (small arguments to full relative precision).
void erf_f32(const float* in, float* out, int64_t n);
// The exact GELU, x * 0.5 * (1 + erf(x / sqrt 2)), with erf_f32's erf.
void gelu_f32(const float* in, float* out, int64_t n);

}  // namespace kiln::cpu
