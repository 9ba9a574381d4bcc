// Compute pipelines from embedded SPIR-V, and recording one dispatch.
//
// Layout convention for every kiln compute shader: set 0 holds N storage buffers at bindings
// 0..N-1; shapes and strides travel in push constants (so one pipeline serves every shape);
// specialization constant 0 is the workgroup size X (`layout(local_size_x_id = 0) in;`).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/device.h"

namespace kiln::gpu_compute {

// Every Vulkan device guarantees 128 bytes of push constants; kiln never asks for more.
constexpr uint32_t kMaxPushConstantBytes = 128;

struct PipelineDesc {
  std::span<const uint32_t> spirv;
  uint32_t storage_buffers = 0;
  uint32_t push_constant_bytes = 0;  // ≤ kMaxPushConstantBytes
  uint32_t workgroup_size_x = 64;
};

class ComputePipeline {
 public:
  ComputePipeline(Device& device, const PipelineDesc& desc);
  ~ComputePipeline();
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  uint32_t storage_buffers() const { return storage_buffers_; }
  uint32_t push_constant_bytes() const { return push_constant_bytes_; }
  uint32_t workgroup_size_x() const { return workgroup_size_x_; }
  Device& device() const { return device_; }

 private:
  void destroy() noexcept;

  Device& device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  uint32_t storage_buffers_ = 0;
  uint32_t push_constant_bytes_ = 0;
  uint32_t workgroup_size_x_ = 0;
};

struct GroupCount {
  uint32_t x = 1, y = 1, z = 1;
};

// Workgroups covering `invocations` one-dimensional invocations. Beyond the device's X limit
// (65535 on many GPUs) the grid wraps into Y, so shaders compute their linear index as
// gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x
// and skip indices past the end. kiln::Error when even X * Y cannot cover it.
GroupCount groups_for(const Device& device, const ComputePipeline& pipeline, uint64_t invocations);

// Records bind pipeline + descriptor set + push constants + dispatch, then a global memory
// barrier (when `written` is not empty) so later dispatches and transfers see the results.
// An empty grid (any count 0) records nothing.
void record_dispatch(VkCommandBuffer cmd, const ComputePipeline& pipeline, VkDescriptorSet set,
                     std::span<const std::byte> push_constants, GroupCount groups,
                     std::span<const Buffer* const> written);

}  // namespace kiln::gpu_compute
