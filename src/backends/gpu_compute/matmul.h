// Host side of shaders/matmul.comp: batched float32 matrix products with an optional addend and
// activation fused into the store, covering ONNX MatMul and Gemm (and MatMul+Add, Gemm+Relu,
// Gemm+Clip fusions):
//
//   y[b] = act(alpha * A[b] x B[b] + beta * C[b])
//
// Operands are strided views, so transposes and broadcast batches cost no copies. Each shader
// invocation computes an 8 x 8 block of y reading A and B straight from their buffers with no
// shared memory and no barriers (the fastest form on CPU implementations such as lavapipe).
//
//   MatMul kernel(device);
//   const MatMulProblem p = gemm_problem(a_shape, b_shape, trans_a, trans_b, alpha);
//   const MatMulAddend c = matmul_addend(p, c_shape, beta);
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     kernel.record(cmd, arena, p, a, b, y, {.addend = &c, .addend_buffer = &gc});
//   });
//
// Limits: every buffer fits one storage-buffer binding (maxStorageBufferRange: 128 MiB on
// lavapipe) and every index fits 32 bits; at most 3 batch dimensions once size-1 dimensions are
// dropped and dimensions contiguous in every operand are merged; at most
// maxComputeWorkGroupCount[2] (65535 on most devices) batches. Beyond these record() throws
// kiln::Error, so a caller can fall back to the CPU.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/shape.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_compute {

// An activation applied to each result before it is stored (a fused activation). The order is
// part of the shader interface of matmul.comp and conv*.comp.
// The fused activations' one enum (opdefs/fused_conv.h); the shaders take None, Relu, Clip,
// HardSwish and SiLU, whose values are the codes of shaders/activation.glsl.
using Activation = FusedActivation;

struct ActivationParams {
  Activation kind = Activation::kNone;
  float min = -std::numeric_limits<float>::infinity();  // Clip only
  float max = std::numeric_limits<float>::infinity();   // Clip only
};

// One batched product in elements: for every batch index b (row-major over `batch`),
//   A[b][m, k] = a[sum_d b_d * a_batch_strides[d] + m * a_row_stride + k * a_col_stride]
// and likewise for B[b][k, n]; y is contiguous [batch..., m, n].
struct MatMulProblem {
  int64_t m = 0, n = 0, k = 0;
  Shape batch;  // the output's batch dimensions (broadcast of A's and B's)
  std::vector<int64_t> a_batch_strides, b_batch_strides;  // one per batch dim; 0 broadcasts
  int64_t a_row_stride = 0, a_col_stride = 1;
  int64_t b_row_stride = 0, b_col_stride = 1;
  float alpha = 1.0f;
  // The ONNX output shape: batch + [m, n], with the dimensions of promoted 1-D operands
  // dropped. Its element count is batch * m * n.
  Shape out_shape;
  bool drops_m = false, drops_n = false;  // A (B) was 1-D: out_shape lacks m (n)
  // Elements of a and b the strides reach (for buffer-size checks).
  int64_t a_elements = 0, b_elements = 0;
};

// A tensor added to the product, C[b][m, n] = c[sum_d b_d * batch_strides[d] + m * row_stride +
// n * col_stride], scaled by beta.
struct MatMulAddend {
  float beta = 1.0f;
  std::vector<int64_t> batch_strides;  // one per batch dim of the problem
  int64_t row_stride = 0, col_stride = 0;
  int64_t elements = 0;  // of the c tensor
};

// ONNX MatMul (numpy matmul): a 1-D A is promoted to [1, k] and a 1-D B to [k, 1], and the
// promoted dimensions are dropped from out_shape; batch dimensions broadcast. kiln::Error when
// the inner dimensions differ or the batches do not broadcast.
MatMulProblem matmul_problem(const Shape& a, const Shape& b);

// ONNX Gemm: 2-D A and B, transA / transB applied as strides, alpha scaling the product.
MatMulProblem gemm_problem(const Shape& a, const Shape& b, bool trans_a, bool trans_b,
                           float alpha = 1.0f);

// The addend for a tensor of shape `c` that broadcasts (unidirectionally) to the problem's
// output batch + [m, n]: Gemm's C ([], [n], [1, n], [m, 1], [m, n]), a bias along n, or a
// fused Add's other operand. kiln::Error when `c` does not broadcast to the output.
MatMulAddend matmul_addend(const MatMulProblem& problem, const Shape& c, float beta = 1.0f);

// What record() fuses into the store.
struct MatMulEpilogue {
  const MatMulAddend* addend = nullptr;  // with addend_buffer; null for none
  const Buffer* addend_buffer = nullptr;
  ActivationParams activation;
  // A tensor of the output's shape added after the addend, before the activation (a fused
  // convolution's residual); null for none.
  const Buffer* residual = nullptr;
};

constexpr int kMatMulMaxBatchRank = 3;

// The shader's loops: vec4 loads four k at a time where A's rows are contiguous and either B's
// rows (Rows: MatMul, Gemm) or B's columns (Columns: Gemm with transB) are too, with k, the
// strides and the batch offsets multiples of 4; scalar loads for any other strides.
enum class MatMulMode : uint32_t { Scalar, Rows, Columns };

// Mirrors the shader's push-constant block (std430, no padding).
struct MatMulPushConstants {
  uint32_t m = 0, n = 0, k = 0;
  uint32_t a_row_stride = 0, a_col_stride = 0, b_row_stride = 0, b_col_stride = 0;
  uint32_t c_row_stride = 0, c_col_stride = 0;
  uint32_t batch_shape[kMatMulMaxBatchRank] = {1, 1, 1};
  uint32_t a_batch_stride[kMatMulMaxBatchRank] = {};
  uint32_t b_batch_stride[kMatMulMaxBatchRank] = {};
  uint32_t c_batch_stride[kMatMulMaxBatchRank] = {};
  float alpha = 1.0f;
  float beta = 0.0f;
  uint32_t has_addend = 0;
  uint32_t activation = 0;
  float act_min = 0.0f;
  float act_max = 0.0f;
  uint32_t mode = 0;  // how the shader reads A and B: MatMulMode
  uint32_t has_residual = 0;
};
static_assert(sizeof(MatMulPushConstants) <= kMaxPushConstantBytes);

// Push constants and the batch count for `problem`; kiln::Error past the limits above.
MatMulPushConstants matmul_push_constants(const MatMulProblem& problem,
                                          const MatMulEpilogue& epilogue, uint32_t* batches);

class MatMul {
 public:
  explicit MatMul(Device& device);

  // Records y = act(alpha * A x B + beta * C) followed by a barrier on y, which holds
  // out_shape's elements. Records nothing for an empty output; k == 0 gives act(beta * C).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const MatMulProblem& problem,
              const Buffer& a, const Buffer& b, const Buffer& y,
              const MatMulEpilogue& epilogue = {}) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Shared by the matmul and conv hosts: kiln::Error naming `what` when `buffer` cannot hold
// `elements` floats or `elements` exceeds 32-bit indexing or the device's binding range.
void check_float_buffer(const Device& device, const Buffer& buffer, int64_t elements,
                        const char* what);

// Workgroups for `invocations` per batch (wrapped into X and Y like groups_for) times
// `batches` in Z; kiln::Error past the device's limits.
GroupCount batched_groups(const Device& device, const ComputePipeline& pipeline,
                          uint64_t invocations, uint32_t batches);

}  // namespace kiln::gpu_compute
