// Host side of shaders/cast.comp: element type conversion between float32, float16, bfloat16,
// int32, int64 and bool, exactly as the CPU's Cast converts.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"

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

}  // namespace kiln::gpu_compute
