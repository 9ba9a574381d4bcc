// Host side of shaders/softmax.comp: float32 Softmax, LogSoftmax and Hardmax along one axis of
// a tensor viewed as [outer, n, inner], a workgroup per (outer, inner) line, or an invocation per
// line for lines up to kSoftmaxSerialLine elements.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_compute {

constexpr int64_t kSoftmaxSerialLine = 16;

// Mirrors the shader's push-constant block.
struct SoftmaxPushConstants {
  uint32_t lines = 0, n = 0, inner = 0, kind = 0, serial = 0;
};
static_assert(sizeof(SoftmaxPushConstants) <= kMaxPushConstantBytes);

class Softmax {
 public:
  explicit Softmax(Device& device);

  // y = softmax (log-softmax, hardmax) of x along n. Records nothing for an empty tensor;
  // kiln::Error when the tensor exceeds 32-bit indexing or a buffer is too small.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Buffer& x, const Buffer& y,
              int64_t outer, int64_t n, int64_t inner, SoftmaxOp kind) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
