// A times a block-quantized weight, read in its packed form (ONNX Runtime's MatMulNBits layout,
// opdefs/block_quantized.h): no float copy of the weight is kept.
//
// Few rows of A (token generation: one row a step) take a GEMV that unpacks the packed values
// in registers and multiplies them with A there, reading the weight's bytes once
// (nbits_gemv.cpp). More rows (a prompt) dequantize the weight a tile of columns at a time
// straight into the panels kiln's GEMM kernel streams, and multiply them with A packed once
// (nbits_matmul.cpp): the dequantization is paid once per weight and call while the GEMM does
// rows * its work, and the weight costs bits / 32 of the memory a float copy would. Against
// kiln's GEMM on a float copy packed once, a 128-row prompt then pays only the dequantization
// (bench/nbits_matmul_bench.cpp measures both).
#pragma once

#include <algorithm>
#include <cmath>
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

// How the products are computed. kFloat32: in float32 (every accuracy_level allows it).
// kInt8Activations (accuracy_level 4, as ONNX Runtime computes it): A is quantized to int8 per
// block of the weight (nbits_quantize_block) and multiplied with the weight's integers exactly,
// then scaled; taken by the GEMV for 4-bit weights on x86 with AVX2 or AVX-512, the other cases
// computing in float32.
enum class NBitsArithmetic { kFloat32, kInt8Activations };

// One block of A quantized to int8 for kInt8Activations: returns the scale max|a| / 127 and
// writes round(a * 127 / max|a|) (0 for an all-zero block), as ONNX Runtime's MLAS does.
inline float nbits_quantize_block(const float* a, int64_t count, int8_t* out) {
  float amax = 0.0f;
  for (int64_t i = 0; i < count; ++i) amax = std::max(amax, std::fabs(a[i]));
  const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    const float q = std::nearbyint(a[i] * inverse);
    out[i] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
  }
  return amax / 127.0f;
}

// Rows of A up to which nbits_matmul takes the GEMV path; above, the GEMM path
// (bench/nbits_matmul_bench.cpp compares the two).
constexpr int64_t kNBitsGemvMaxRows = 4;

// Y [M, N] = A [M, K] * W^T (+ bias [N] when not null), parallel over the job system.
void nbits_matmul(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                  NBitsArithmetic arithmetic = NBitsArithmetic::kFloat32);

// The same, forcing the GEMV (`gemv` true, any M) or the GEMM path: for the tests and the
// benchmark, which compare them.
void nbits_matmul_path(const NBitsWeight& w, int64_t M, const float* A, const float* bias, float* Y,
                       bool gemv, NBitsArithmetic arithmetic = NBitsArithmetic::kFloat32);

}  // namespace kiln::cpu
