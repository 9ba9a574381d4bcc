// Host side of shaders/conv2d.comp (implicit GEMM, register-blocked) and
// shaders/conv_depthwise.comp: float32 Conv over NCHW images with 1 or 2 spatial axes, groups,
// strides, dilations, begin pads (end pads only shape the output, which the geometry carries),
// a bias and a fused activation. 1x1 stride-1 unpadded convolutions without groups are plain
// matrix products and go to the MatMul kernel.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/cpu/conv_geometry.h"
#include "backends/vulkan/buffer.h"
#include "backends/vulkan/descriptors.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/matmul.h"
#include "backends/vulkan/pipeline.h"
#include "kiln/shape.h"

namespace kiln::vulkan {

// Mirrors the shaders' push-constant block.
struct ConvPushConstants {
  uint32_t cout_g = 0, cin_g = 0, groups = 1;
  uint32_t H = 0, W = 0, OH = 0, OW = 0;
  uint32_t KH = 0, KW = 0;
  uint32_t sh = 1, sw = 1, dh = 1, dw = 1;
  int32_t ph = 0, pw = 0;
  uint32_t has_bias = 0, act = 0;
  float lo = 0, hi = 0;
};
static_assert(sizeof(ConvPushConstants) <= kMaxPushConstantBytes);

enum class ConvPath { Direct, Depthwise, Pointwise };

struct ConvProblem {
  ConvPushConstants pc;
  uint32_t batch = 0;
  ConvPath path = ConvPath::Direct;
  Shape out_shape;
};

// `x` is [N, C, (H,) W], `geometry` the resolved window over the spatial axes (1 or 2), `group`
// ONNX's group attribute. kiln::Error for more than 2 spatial axes or 32-bit index overflow.
ConvProblem conv_problem(const Shape& x, int64_t out_channels, const cpu::ConvGeometry& geometry,
                         int64_t group, bool has_bias, Activation act = Activation::None,
                         float lo = 0, float hi = 0);

class Conv {
 public:
  explicit Conv(Device& device);

  // y = act(conv(x, w) + bias); `bias` may be null. Nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& problem,
              const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline direct_;
  ComputePipeline depthwise_;
  MatMul matmul_;
};

}  // namespace kiln::vulkan
