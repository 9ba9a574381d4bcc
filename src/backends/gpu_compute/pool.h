// Host side of shaders/pool.comp: float32 MaxPool, AveragePool and LpPool over NC planes with 1
// to 3 spatial axes, the window resolved by the CPU op's geometry code (pads, strides,
// dilations, ceil_mode, auto_pad); and of shaders/max_pool_indices.comp, MaxPool with its Indices
// output (opdefs/pool.h).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/window.h"

namespace kiln::gpu_compute {

constexpr size_t kPoolMaxSpatialAxes = 3;

// Mirrors the shader's push-constant block. Per-axis values are (depth, height, width); fewer
// spatial axes fill the trailing entries, the leading ones being of size 1.
struct PoolPushConstants {
  using Axes = std::array<uint32_t, kPoolMaxSpatialAxes>;
  uint32_t count = 0, kind = 0, count_include_pad = 0;
  float p = 2.0f;
  Axes in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1};
  std::array<int32_t, kPoolMaxSpatialAxes> pad{}, pad_end{};
  uint32_t column_major = 0;  // MaxPool's Indices: storage_order 1
};
static_assert(sizeof(PoolPushConstants) <= kMaxPushConstantBytes);

// The push constants for `shape` (geometry, end pads, planes); `p` is LpPool's exponent.
// kiln::Error for more than 3 spatial axes, p <= 0 for LpPool, or 32-bit index overflow (of X's
// elements too, so that every flat index of MaxPool's Indices is below 2^31).
PoolPushConstants pool_constants(const PoolShape& shape, PoolOp kind, bool count_include_pad,
                                 float p = 2.0f);

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

class MaxPoolWithIndices {
 public:
  explicit MaxPoolWithIndices(Device& device);

  // y = the maximum of x's windows, `indices` (int64) where each was found. Records nothing for
  // an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const PoolPushConstants& pc,
              const Buffer& x, const Buffer& y, const Buffer& indices) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
