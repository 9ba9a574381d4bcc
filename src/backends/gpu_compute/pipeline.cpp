#include "backends/gpu_compute/pipeline.h"

#include <string>
#include <vector>

#include "backends/gpu_compute/node_replay.h"
#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

ComputePipeline::ComputePipeline(Device& device, const PipelineDesc& desc)
    : device_(device),
      storage_buffers_(desc.storage_buffers),
      push_constant_bytes_(desc.push_constant_bytes),
      workgroup_size_x_(desc.workgroup_size_x) {
  check(!desc.spirv.empty(), "compute pipeline: empty SPIR-V");
  check(desc.push_constant_bytes <= kMaxPushConstantBytes && desc.push_constant_bytes % 4 == 0,
        "compute pipeline: push constants must be a multiple of 4 and at most 128 bytes, not " +
            std::to_string(desc.push_constant_bytes));
  const VkPhysicalDeviceLimits& limits = device.limits();
  check(desc.workgroup_size_x >= 1 && desc.workgroup_size_x <= limits.maxComputeWorkGroupSize[0] &&
            desc.workgroup_size_x <= limits.maxComputeWorkGroupInvocations,
        "compute pipeline: workgroup size " + std::to_string(desc.workgroup_size_x) +
            " exceeds the device limit " + std::to_string(limits.maxComputeWorkGroupSize[0]));
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    std::vector<VkDescriptorSetLayoutBinding> bindings(desc.storage_buffers);
    for (uint32_t i = 0; i < desc.storage_buffers; ++i) {
      bindings[i].binding = i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set_info{};
    set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    set_info.bindingCount = desc.storage_buffers;
    set_info.pBindings = bindings.data();
    vk_check(vkCreateDescriptorSetLayout(device.handle(), &set_info, nullptr, &set_layout_),
             "vkCreateDescriptorSetLayout");

    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, desc.push_constant_bytes};
    VkPipelineLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout_;
    layout_info.pushConstantRangeCount = desc.push_constant_bytes ? 1 : 0;
    layout_info.pPushConstantRanges = &range;
    vk_check(vkCreatePipelineLayout(device.handle(), &layout_info, nullptr, &layout_),
             "vkCreatePipelineLayout");

    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = desc.spirv.size_bytes();
    module_info.pCode = desc.spirv.data();
    vk_check(vkCreateShaderModule(device.handle(), &module_info, nullptr, &module),
             "vkCreateShaderModule");

    VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec{1, &entry, sizeof(uint32_t), &workgroup_size_x_};
    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &spec;
    info.layout = layout_;
    vk_check(vkCreateComputePipelines(device.handle(), device.pipeline_cache(), 1, &info, nullptr,
                                      &pipeline_),
             "vkCreateComputePipelines");
  } catch (...) {
    if (module) vkDestroyShaderModule(device.handle(), module, nullptr);
    destroy();
    throw;
  }
  // The pipeline keeps what it needs; the module may go.
  vkDestroyShaderModule(device.handle(), module, nullptr);
}

ComputePipeline::~ComputePipeline() { destroy(); }

void ComputePipeline::destroy() noexcept {
  if (pipeline_) vkDestroyPipeline(device_.handle(), pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(device_.handle(), layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(device_.handle(), set_layout_, nullptr);
  pipeline_ = VK_NULL_HANDLE;
  layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

GroupCount groups_for(const Device& device, const ComputePipeline& pipeline, uint64_t invocations) {
  const uint64_t groups =
      (invocations + pipeline.workgroup_size_x() - 1) / pipeline.workgroup_size_x();
  const uint64_t max_x = device.limits().maxComputeWorkGroupCount[0];
  const uint64_t max_y = device.limits().maxComputeWorkGroupCount[1];
  if (groups <= max_x) return {static_cast<uint32_t>(groups), groups ? 1u : 0u, 1};
  const uint64_t y = (groups + max_x - 1) / max_x;
  check(y <= max_y, "dispatch of " + std::to_string(invocations) +
                        " invocations exceeds the device's workgroup count limits");
  return {static_cast<uint32_t>(max_x), static_cast<uint32_t>(y), 1};
}

void record_dispatch(VkCommandBuffer cmd, const ComputePipeline& pipeline, VkDescriptorSet set,
                     std::span<const std::byte> push_constants, GroupCount groups,
                     std::span<const Buffer* const> written) {
  check(push_constants.size() == pipeline.push_constant_bytes(),
        "dispatch: " + std::to_string(push_constants.size()) + " bytes of push constants for a " +
            std::to_string(pipeline.push_constant_bytes()) + "-byte range");
  if (groups.x == 0 || groups.y == 0 || groups.z == 0) return;
  Device& device = pipeline.device();
  if (NodeRecording* capture = device.capture())
    capture->note_dispatch(pipeline, set, push_constants, groups, written);
  if (device.hazards().before_dispatch(set, written)) record_compute_barrier(device, cmd);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.handle());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0,
                          nullptr);
  if (!push_constants.empty()) {
    vkCmdPushConstants(cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_constants.size()), push_constants.data());
  }
  vkCmdDispatch(cmd, groups.x, groups.y, groups.z);
  DeviceWorkCounters::add(device.counters().dispatches);
}

void record_compute_barrier(Device& device, VkCommandBuffer cmd) {
  // A global barrier rather than one per buffer: one call orders every conflicting access the
  // tracker found, and drivers implement buffer barriers as global ones anyway.
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                       &barrier, 0, nullptr, 0, nullptr);
  DeviceWorkCounters::add(device.counters().barriers);
}

}  // namespace kiln::gpu_compute
