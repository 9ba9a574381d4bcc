// The input projection of the recurrent ops (LSTM, RNN, GRU) as one batched Matmul: X, viewed as
// [rows, input] in its own order, times W[d]ᵀ for every direction d, W read transposed through
// its strides. The result is [directions, rows, width], width = gates * hidden.
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/matmul.h"

namespace kiln::gpu_pixel {

inline MatmulParams recurrent_projection_params(int64_t rows, int64_t input, int64_t width,
                                                int64_t directions) {
  MatmulParams p;
  p.batch_rank = 1;
  p.batch_shape[0] = static_cast<int>(directions);
  p.a_batch_stride[0] = 0;
  p.b_batch_stride[0] = static_cast<int>(width * input);
  p.m = static_cast<int>(rows);
  p.n = static_cast<int>(width);
  p.k = static_cast<int>(input);
  p.a_stride_m = static_cast<int>(input);
  p.a_stride_k = 1;
  p.b_stride_k = 1;
  p.b_stride_n = static_cast<int>(input);
  return p;
}

}  // namespace kiln::gpu_pixel
