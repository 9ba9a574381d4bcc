// A times a block-quantized weight, read in its packed form (ONNX Runtime's MatMulNBits layout,
// opdefs/block_quantized.h): no float copy of the weight is kept.
//
// Few rows of A (token generation: one row a step) take a GEMV that dequantizes each chunk of
// packed values into registers and multiplies it with A there, so that it reads the weight's
// bytes once at memory speed. More rows (a prompt) dequantize a tile of the weight's rows into a
// float buffer the size of the L2 cache and multiply it with kiln's GEMM: the dequantization is
// then paid once per weight and call while the GEMM does rows * its work, and the weight costs
// bits / 32 of the memory a float copy would.
//
// The price of keeping no float copy is paid by prompts: the tiles are packed again for the
// GEMM on every call, so a 128-row prompt takes about 1.3 times as long as kiln's GEMM on a
// float copy packed once (bench/nbits_matmul_bench.cpp). A float copy would take 8 times an
// int4 weight's memory and, read by token generation, 8 times its bandwidth; dequantizing
// straight into the GEMM's packed panels would remove most of that price.
//
// Both paths take the values of a chunk of packed bytes in the order their bits lie (a chunk of
// C bytes holds 8 / bits values a byte: all the lowest values of the C bytes first, then the
// next ones), so A's rows are rearranged once into that order instead of the weight being
// reordered; the sum over k is the same.
#pragma once

#include <cstdint>

namespace kiln::cpu {

// W [N, K] as MatMulNBits stores it: `bits`-bit values (2, 4 or 8) packed from the low bits of
// each byte up, in blocks of block_size (a power of two, at least 16) along K, each block with
// a scale and a zero point: W[n, k] = (q[n, k] - zp[n, b]) * scale[n, b], b = k / block_size.
struct NBitsWeight {
  int64_t N = 0, K = 0, bits = 4, block_size = 32;
  const uint8_t* data = nullptr;                // [N, k_blocks, block_size * bits / 8]
  const float* scales = nullptr;                // [N * k_blocks]
  const uint8_t* packed_zero_points = nullptr;  // [N, ceil(k_blocks * bits / 8)], or nullptr
  const float* float_zero_points = nullptr;     // [N * k_blocks], or nullptr
  // With neither zero point given, 2^(bits - 1).

  int64_t k_blocks() const { return (K + block_size - 1) / block_size; }
  int64_t blob_size() const { return block_size * bits / 8; }
};

// Rows of A up to which nbits_matmul takes the GEMV path; above, the tiled GEMM
// (bench/nbits_matmul_bench.cpp compares the two).
constexpr int64_t kNBitsGemvMaxRows = 4;

// Y [M, N] = A [M, K] * W^T (+ bias [N] when not null), parallel over the job system.
void nbits_matmul(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y);

// The same, forcing the GEMV (`gemv` true, any M) or the tiled GEMM path: for the tests and the
// benchmark, which compare them.
void nbits_matmul_path(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                       bool gemv);

}  // namespace kiln::cpu
