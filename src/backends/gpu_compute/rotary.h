// The rotary-embedding kernel (shaders/rotary.comp) that RotaryEmbedding (rotary.cpp) and
// GroupQueryAttention's built-in rotation (group_query_attention.cpp) record: float32, 3-D or
// 4-D input, interleaved or not, the first rotary_dim features of each head rotated by the cache
// row each token names.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/rotary.h"

namespace kiln::gpu_compute {

class Rotary {
 public:
  explicit Rotary(Device& device);

  // y = x rotated; `rows` holds a cache row per token b * seq + s (int32), the caches
  // `cache_stride` floats a row. Records nothing for an empty input.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const RotaryGeometry& g,
              bool interleaved, const Buffer& x, const Buffer& cos_cache, const Buffer& sin_cache,
              int64_t cache_stride, const Buffer& rows, const Buffer& y) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
