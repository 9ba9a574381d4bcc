// Host side of shaders/pool.comp: float32 MaxPool (without the Indices output) and
// AveragePool over NC planes with 1 or 2 spatial axes, the window resolved by the CPU op's
// geometry code (pads, strides, dilations, ceil_mode, auto_pad).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/cpu/pool_kernels.h"
#include "backends/vulkan/buffer.h"
#include "backends/vulkan/descriptors.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/pipeline.h"

namespace kiln::vulkan {

// Mirrors the shader's push-constant block.
struct PoolPushConstants {
  uint32_t count = 0, average = 0, count_include_pad = 0;
  uint32_t H = 0, W = 0, OH = 0, OW = 0;
  uint32_t KH = 0, KW = 0;
  uint32_t sh = 1, sw = 1, dh = 1, dw = 1;
  int32_t ph = 0, pw = 0, pad_end_h = 0, pad_end_w = 0;
};
static_assert(sizeof(PoolPushConstants) <= kMaxPushConstantBytes);

enum class PoolKind { Max, Average };

// The push constants for `shape` (geometry, end pads, planes). kiln::Error for more than 2
// spatial axes or 32-bit index overflow.
PoolPushConstants pool_constants(const cpu::PoolShape& shape, PoolKind kind,
                                 bool count_include_pad);

class Pool {
 public:
  explicit Pool(Device& device);

  // y = the pool of x's windows. Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const PoolPushConstants& pc,
              const Buffer& x, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::vulkan
