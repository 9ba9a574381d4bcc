// Host side of the cast shaders, exactly as the CPU's Cast converts: shaders/cast.comp between
// float32, float16, bfloat16, int32, int64 and bool (32-bit arithmetic only), and
// shaders/cast_wide.comp between every fixed-size type (needs shaderInt64).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"
#include "opdefs/cast.h"

namespace kiln::gpu_compute {

class Cast {
 public:
  explicit Cast(Device& device, uint32_t workgroup_size = 256);

  // Whether the shader converts from and to `dtype`.
  static bool converts(DataType dtype);

  // Records out = cast(in) over `count` elements, then a barrier on `out`. kiln::Error for a
  // type without a code or a count beyond 32-bit word indexing; nothing for count 0.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
              DataType to, const Buffer& out, uint64_t count) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Conversion between any two fixed-size types (not string or complex), with Cast's `saturate`
// and `round_mode`. kiln::Error from the constructor on a device without shaderInt64.
class WideCast {
 public:
  explicit WideCast(Device& device, uint32_t workgroup_size = 256);

  // Whether the shader converts from and to `dtype`.
  static bool converts(DataType dtype);

  // Records out = cast(in) over `count` elements, then a barrier on `out`. kiln::Error for a
  // type it does not convert or a count beyond 32-bit indexing; nothing for count 0.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, DataType from, const Buffer& in,
              DataType to, const Buffer& out, uint64_t count, const CastOptions& options) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
