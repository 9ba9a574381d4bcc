// Host side of shaders/unary_elementwise.comp: float32 unary math and activations, the op and
// its parameters chosen by push constants so one pipeline serves them all.
//
//   UnaryElementwise kernel(device);
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     kernel.record(cmd, arena, {UnaryOp::LeakyRelu, 0.1f}, x, y, count);
//   });
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_common/device_unary_op.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"

namespace kiln::gpu_compute {

// The shader runs every UnaryOp (the rows of gpu_common/unary_ops.inc).
using kiln::UnaryOp;
using kiln::UnaryParams;

// Mirrors the shader's push-constant block.
struct UnaryPushConstants {
  uint32_t op = 0;
  uint32_t count = 0;
  float alpha = 0.0f;
  float beta = 0.0f;
};
static_assert(sizeof(UnaryPushConstants) <= kMaxPushConstantBytes);

class UnaryElementwise {
 public:
  explicit UnaryElementwise(Device& device, uint32_t workgroup_size = 256);

  // Records y = f(x) over `count` float32 elements followed by a barrier on y. Records nothing
  // for count 0. kiln::Error when a buffer is smaller than count elements, count exceeds 32-bit
  // indexing or the parameters fail check_unary_params.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const UnaryParams& params,
              const Buffer& x, const Buffer& y, uint64_t count) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
