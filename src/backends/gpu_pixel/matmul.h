// Float32 MatMul and Gemm on texture tensors: Y[b, m, n] = act(alpha * sum_k A[b, m, k] B[b, k, n]
// + beta * C[m, n]), with A, B and C addressed through strides, so transposes (Gemm's transA and
// transB), broadcast batch dimensions (stride 0) and Gemm's broadcast C ([], [N], [M, 1], [M, N])
// need no copies.
//
//   MatmulParams p = matmul_params(a_shape, b_shape);   // numpy matmul rules
//   Matmul(context).record(p, a, b, nullptr, y);        // y holds p.output_count() elements
//
// Each fragment computes one output texel, four consecutive output elements. When N is a multiple
// of 4 and B's rows are contiguous and texel-aligned, the four share one row m and B is read a
// texel at a time; when A's rows are contiguous and aligned too, A is read a texel at a time and
// the inner loop is four vec4 multiply-adds per four k. Otherwise each element loops on its own.
// Long products are drawn in bands of rows (banded_draw.h).
#pragma once

#include <array>
#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/fused_activation.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

constexpr int kMatmulMaxBatchRank = 4;

using MatmulActivation = FusedActivation;

struct MatmulParams {
  int batch_rank = 0;  // broadcast batch dimensions, outermost first
  std::array<int, kMatmulMaxBatchRank> batch_shape{};
  std::array<int, kMatmulMaxBatchRank> a_batch_stride{};  // 0 on broadcast dimensions
  std::array<int, kMatmulMaxBatchRank> b_batch_stride{};
  int m = 0, n = 0, k = 0;
  int a_stride_m = 0, a_stride_k = 1;  // A(m, k) = a[a_batch + m * a_stride_m + k * a_stride_k]
  int b_stride_k = 0, b_stride_n = 1;  // B(k, n) likewise
  float alpha = 1.0f;
  // C, when given: beta * c[m * c_stride_m + n * c_stride_n] is added (strides 0 broadcast).
  float beta = 1.0f;
  int c_stride_m = 0, c_stride_n = 0;
  MatmulActivation activation = MatmulActivation::kNone;
  float clip_min = 0.0f, clip_max = 0.0f;

  int64_t batch_count() const;
  int64_t output_count() const { return batch_count() * m * n; }
};

// ONNX MatMul of shapes a and b (1-D operands promoted as numpy does). kiln::Error when the inner
// dimensions differ, the batch dimensions do not broadcast, more than 4 batch dimensions remain
// after dropping unit ones, or an index passes 2^31.
MatmulParams matmul_params(const Shape& a, const Shape& b);

// ONNX Gemm of 2-D a and b with optional C of shape c_shape (nullptr: none). kiln::Error on
// mismatched or wrongly ranked shapes and on a C that does not broadcast to [M, N].
MatmulParams gemm_params(const Shape& a, const Shape& b, const Shape* c_shape, bool trans_a,
                         bool trans_b, float alpha, float beta);

class Matmul {
 public:
  explicit Matmul(Context& context) : context_(context) {}

  // Draws y from a, b and (when `c` is not null) c. Nothing for an empty output; an output with
  // K = 0 is beta * C (or zero). kiln::Error when a tensor holds fewer elements than its strides
  // reach or y is not sized p.output_count().
  void record(const MatmulParams& p, const TextureTensor& a, const TextureTensor& b,
              const TextureTensor* c, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
