// MatMulNBits' GEMV path (backends/cpu/nbits_matmul.h picks it for few rows of A): Y [M, N] =
// A [M, K] * W^T (+ bias [N] when not null), reading the packed weight once at about memory
// speed, parallel over N on the job system. nbits_gemv.cpp has the scheme.
#pragma once

#include <cstdint>

#include "backends/cpu/nbits_matmul.h"

namespace kiln::cpu {

void nbits_gemv(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                NBitsArithmetic arithmetic);

}  // namespace kiln::cpu
