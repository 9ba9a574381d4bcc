// The inner loop of 2-D float max pooling, vectorised with Highway: one output row's columns
// whose windows lie wholly inside the image.
#pragma once

#include <cstdint>

namespace kiln::cpu {

// out[c] = max over the window taps of rows[i][c * stride + j * dilation], for c in
// [c_begin, c_end), i < row_count, j < kernel_width; rows[i] points at the input row's column
// -pad (so every tap read is inside the row for these columns). Taps are taken in row-major
// order with the first one seeding the maximum and max(best, v) = v > best ? v : best, so a
// NaN lands as in the scalar loops.
void max_pool_row_f32(const float* const* rows, int64_t row_count, int64_t kernel_width,
                      int64_t dilation, int64_t stride, int64_t c_begin, int64_t c_end, float* out);

}  // namespace kiln::cpu
