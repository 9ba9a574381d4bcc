// The product of a few rows of A with a 4-bit block-quantized weight (MatMulNBits' layout, see
// opdefs/block_quantized.h) that reads the packed weight directly: the decode step of a language
// model, where the weight is read once per token and the memory bandwidth is the limit. 4 bits
// a weight instead of the 32 of a dequantized float32 copy.
//
//   y[m, n] = sum_b scale[n, b] * (sum_{k in b} a[m, k] * q[n, k] - zero_point[n, b] * sum_{k in b}
//   a[m, k])
//
// Per block, the packed bytes are widened to float in registers (low nibble: the even k, high
// nibble: the odd k, against a copy of A's row with each block's even and odd values apart), so
// nothing but the packed weight, its scales and the scaled zero points stream from memory.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::cpu {

struct Int4Weights {
  int64_t N = 0, K = 0, block_size = 0, blocks = 0;  // blocks = ceil(K / block_size) per row
  std::vector<uint8_t> packed;     // [N, blocks, block_size / 2], as MatMulNBits' B
  std::vector<float> scales;       // [N, blocks]
  std::vector<float> zero_scaled;  // [N, blocks]: zero_point * scale

  // Bytes one product reads from the weight (packed values, scales, scaled zero points).
  int64_t bytes() const {
    return static_cast<int64_t>(packed.size() + 4 * scales.size() + 4 * zero_scaled.size());
  }
};

// y [M, N] = a [M, K] * W^T (+ bias [N], may be null), in parallel over N. Meant for small M.
void int4_gemv(const Int4Weights& w, const float* a, int64_t M, const float* bias, float* y);

}  // namespace kiln::cpu
