// Host side of shaders/fill.comp: a tensor filled with one value (ConstantOfShape), for
// float32, int32, int64 and bool elements.
//
//   context.kernel<Fill>().record(cmd, arena, Tensor::scalar<float>(1.0f), out, count);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/tensor.h"

namespace kiln::gpu_compute {

struct FillPushConstants {
  uint32_t words = 0;
  uint32_t period = 1;
  uint32_t pattern[2] = {};
};
static_assert(sizeof(FillPushConstants) <= kMaxPushConstantBytes);

// Whether `value`'s element type is one the fill writes (1, 4 or 8 bytes).
bool fillable(DataType dtype);

class Fill {
 public:
  explicit Fill(Device& device, uint32_t workgroup_size = 256);

  // Records `count` elements of `out` set to the first element of the host tensor `value`,
  // then a barrier on `out`. kiln::Error for an element size the fill lacks.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& value, const Buffer& out,
              uint64_t count) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
