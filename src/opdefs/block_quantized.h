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
//
// GatherBlockQuantized gathers rows of such a weight (an embedding table) along axis 0 and
// dequantizes them: data is uint8 [rows, ..., packed columns] holding 8 / bits values a byte,
// quantized in blocks along the last axis; scales (the output's float type) have data's shape
// with ceil(columns / block_size) in the last axis; zero points are packed the same way, and
// default to 2^(bits - 1) as for MatMulNBits. The output is data's shape with axis 0 replaced
// by indices' shape and the last axis unpacked.
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

struct GatherBlockQuantizedAttrs {
  int64_t gather_axis = 0, quantize_axis = 1, block_size = 128, bits = 4;
  int64_t per_byte() const { return 8 / bits; }
  int64_t default_zero_point() const { return int64_t{1} << (bits - 1); }
};

// gather_axis, quantize_axis, block_size and bits, checked (uint8 data: gather_axis 0 and
// quantize_axis the last; those two are checked against data's rank by the resolution below).
GatherBlockQuantizedAttrs parse_gather_block_quantized_attrs(const NodeInfo& info);

// What a kernel needs: the data's rows and unpacked columns, the output's shape, the blocks.
struct GatherBlockQuantizedProblem {
  int64_t rows = 0;          // data's first dimension (what indices index)
  int64_t inner = 1;         // the dims between the first and the last (rank > 2)
  int64_t packed_cols = 0;   // data's last dimension, in bytes
  int64_t cols = 0;          // unpacked values per line
  int64_t blocks = 0;        // blocks per line
  int64_t zp_row_bytes = 0;  // packed zero-point bytes per line
  Shape output;
};

// Checks data (uint8), scales and zero points against the attributes and resolves the shapes;
// throws a kiln::Error naming the node. `indices` gives only its shape here.
GatherBlockQuantizedProblem resolve_gather_block_quantized(const ir::Node& node,
                                                           const GatherBlockQuantizedAttrs& attrs,
                                                           const Tensor& data, const Shape& indices,
                                                           const Tensor& scales,
                                                           const Tensor* zero_points);

}  // namespace kiln
