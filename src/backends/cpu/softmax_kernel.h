// Float32 Softmax and LogSoftmax over one axis of a tensor viewed as [outer, n, inner],
// vectorised with Highway (run-time dispatch) and split over kiln's job system.
//
// Numerically stable: the maximum along the axis is subtracted before exponentiating, and
// LogSoftmax is computed as (x - max) - log(sum(exp(x - max))) so that it stays exact for
// inputs far below the maximum (where exp underflows to zero).
#pragma once

#include <cstdint>

namespace kiln::cpu {

// Columns handled together when the axis is strided (inner > 1).
inline constexpr int64_t kSoftmaxTile = 64;

// y[o, :, i] = softmax (or log-softmax when `log` is true) of x[o, :, i]. x and y must not
// overlap. n == 0 or an empty outer/inner extent does nothing.
void softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log);

}  // namespace kiln::cpu
