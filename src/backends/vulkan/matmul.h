// Host side of shaders/matmul.comp: batched float32 matrix products with strides, for ONNX
// MatMul (numpy batch broadcasting) and Gemm (transA/transB, alpha, beta, a broadcast C), with
// an optional fused activation.
//
//   MatMulProblem p = matmul_problem(a_shape, b_shape);   // or gemm_problem(...)
//   kernel.record(cmd, arena, p, a, b, nullptr, c);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/vulkan/buffer.h"
#include "backends/vulkan/descriptors.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/pipeline.h"
#include "kiln/shape.h"

namespace kiln::vulkan {

enum class Activation : uint32_t { None = 0, Relu = 1, Clip = 2 };

// Mirrors the shader's push-constant block.
struct MatMulPushConstants {
  uint32_t M = 0, N = 0, K = 0;
  uint32_t batch_inner = 1;
  uint32_t a_s0 = 0, a_s1 = 0, a_rs = 0, a_cs = 0;
  uint32_t b_s0 = 0, b_s1 = 0, b_rs = 0, b_cs = 0;
  uint32_t c_s0 = 0, c_s1 = 0;
  uint32_t has_bias = 0, bias_rs = 0, bias_cs = 0;
  uint32_t act = 0;
  float alpha = 1, beta = 1, lo = 0, hi = 0;
};
static_assert(sizeof(MatMulPushConstants) <= kMaxPushConstantBytes);

struct MatMulProblem {
  MatMulPushConstants pc;
  uint32_t batch = 1;  // batch_outer * batch_inner
  Shape out_shape;
};

// ONNX MatMul of `a` and `b` (1-D operands promoted and their unit dimension dropped from the
// output; batch dimensions broadcast). kiln::Error for shapes that do not multiply, more than
// two batch dimensions that cannot be merged, or sizes beyond 32-bit indexing.
MatMulProblem matmul_problem(const Shape& a, const Shape& b);
// ONNX Gemm: A [M,K] (or [K,M] with trans_a), B likewise, optional C broadcast to [M,N].
MatMulProblem gemm_problem(const Shape& a, const Shape& b, bool trans_a, bool trans_b, float alpha,
                           float beta, const Shape* c);
void set_activation(MatMulPushConstants& pc, Activation act, float lo = 0, float hi = 0);

class MatMul {
 public:
  explicit MatMul(Device& device, uint32_t workgroup_size = 64);

  // Records c = act(alpha a b + beta bias); `bias` may be null. Nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const MatMulProblem& problem,
              const Buffer& a, const Buffer& b, const Buffer* bias, const Buffer& c) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::vulkan
