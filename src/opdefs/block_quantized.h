// ONNX Runtime's block-quantized weights (com.microsoft): MatMulNBits multiplies by a weight
// stored as `bits`-bit integers (2, 4 or 8) in blocks of `block_size` along K, each block with a
// scale and a zero point:
//
//   Y[..., n] = sum_k A[..., k] * W[n, k] (+ bias[n]),   W[n, k] = (q[n, k] - zp[n, b]) * scale[n,
//   b]
//
// with b = k / block_size (or g_idx[k]). B is [N, k_blocks, blob_size] bytes, the values of a
// row packed from the low bits of each byte up; scales are [N * k_blocks]; zero points are either
// packed like B (uint8, ceil(k_blocks * bits / 8) bytes a row) or A's float type
// ([N * k_blocks]), and default to 2^(bits - 1).
#pragma once

#include <cstdint>

#include "kiln/tensor.h"
#include "opdefs/node_info.h"

namespace kiln {

struct NBitsAttrs {
  int64_t K = 0, N = 0, bits = 4, block_size = 0, accuracy_level = 0;
  int64_t k_blocks() const { return (K + block_size - 1) / block_size; }
  int64_t blob_size() const { return block_size * bits / 8; }
  int64_t per_byte() const { return 8 / bits; }
  // Bytes of one row of packed zero points.
  int64_t zero_point_row_bytes() const { return (k_blocks() * bits + 7) / 8; }
  int64_t default_zero_point() const { return int64_t{1} << (bits - 1); }
};

// K, N, bits, block_size (a power of two, at least 16) and accuracy_level, checked.
NBitsAttrs parse_matmul_nbits_attrs(const NodeInfo& info);

// MatMulNBits' inputs: A, B, scales, zero_points?, g_idx?, bias?.
struct NBitsInputs {
  const Tensor* a = nullptr;
  const Tensor* b = nullptr;
  const Tensor* scales = nullptr;
  const Tensor* zero_points = nullptr;  // nullptr: the default zero point
  const Tensor* g_idx = nullptr;
  const Tensor* bias = nullptr;
};

// Checks the weight inputs' types and shapes against the attributes (and A's last dimension
// when A is given); throws a kiln::Error naming the node.
void check_matmul_nbits_inputs(const ir::Node& node, const NBitsAttrs& attrs,
                               const NBitsInputs& in);

}  // namespace kiln
