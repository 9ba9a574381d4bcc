// Descriptor sets for dispatches, allocated from pools that grow on demand and are reset as a
// whole once the GPU has finished the command buffers that used them.
#pragma once

#include <vulkan/vulkan.h>

#include <span>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"

namespace kiln::gpu_compute {

class DescriptorArena {
 public:
  explicit DescriptorArena(Device& device, uint32_t sets_per_pool = 256);
  ~DescriptorArena();
  DescriptorArena(const DescriptorArena&) = delete;
  DescriptorArena& operator=(const DescriptorArena&) = delete;

  // A set for `pipeline` with buffers[i] bound whole at binding i. Valid until reset().
  // kiln::Error when the count does not match or a buffer exceeds maxStorageBufferRange
  // (binding large tensors in pieces comes with the executor).
  VkDescriptorSet bind(const ComputePipeline& pipeline, std::span<const Buffer* const> buffers);

  // Only once no submitted command buffer uses the sets any more.
  void reset();

 private:
  VkDescriptorPool new_pool();

  Device& device_;
  uint32_t sets_per_pool_;
  std::vector<VkDescriptorPool> pools_;
  size_t current_ = 0;  // the pool allocated from; later ones are spares after a reset
};

// The dispatch most kernels record: `buffers` bound in order, the last `written` of them written
// by the shader, one invocation per element of a `count`-element output (nothing for 0).
template <class PushConstants>
void record_per_element(VkCommandBuffer cmd, const Device& device, DescriptorArena& arena,
                        const ComputePipeline& pipeline, const PushConstants& pc, uint64_t count,
                        std::span<const Buffer* const> buffers, size_t written = 1) {
  if (count == 0) return;
  const VkDescriptorSet set = arena.bind(pipeline, buffers);
  record_dispatch(cmd, pipeline, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device, pipeline, count), buffers.last(written));
}

}  // namespace kiln::gpu_compute
