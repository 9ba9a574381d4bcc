#include "backends/gpu_compute/descriptors.h"

#include <string>

#include "backends/gpu_compute/node_replay.h"
#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {
// Room for kiln's widest kernels (a fused op with many inputs) without wasting pool memory.
constexpr uint32_t kBuffersPerSet = 8;
}  // namespace

DescriptorArena::DescriptorArena(Device& device, uint32_t sets_per_pool)
    : device_(device), sets_per_pool_(sets_per_pool) {}

DescriptorArena::~DescriptorArena() {
  for (VkDescriptorPool pool : pools_) vkDestroyDescriptorPool(device_.handle(), pool, nullptr);
}

VkDescriptorPool DescriptorArena::new_pool() {
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets_per_pool_ * kBuffersPerSet};
  VkDescriptorPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.maxSets = sets_per_pool_;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vk_check(vkCreateDescriptorPool(device_.handle(), &info, nullptr, &pool),
           "vkCreateDescriptorPool");
  pools_.push_back(pool);
  return pool;
}

VkDescriptorSet DescriptorArena::bind(const ComputePipeline& pipeline,
                                      std::span<const Buffer* const> buffers) {
  check(buffers.size() == pipeline.storage_buffers(),
        "descriptor set: " + std::to_string(buffers.size()) + " buffers for a pipeline with " +
            std::to_string(pipeline.storage_buffers()));
  check(buffers.size() <= kBuffersPerSet, "descriptor set: more than 8 storage buffers");
  for (const Buffer* b : buffers) {
    check(b->allocated_size() <= device_.info().max_storage_buffer_range,
          "a " + std::to_string(b->size()) + "-byte buffer exceeds the device's storage-buffer " +
              "range of " + std::to_string(device_.info().max_storage_buffer_range) + " bytes");
  }

  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetLayout layout = pipeline.set_layout();
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout;
  while (true) {
    const bool fresh = current_ == pools_.size();
    if (fresh) new_pool();
    alloc.descriptorPool = pools_[current_];
    const VkResult r = vkAllocateDescriptorSets(device_.handle(), &alloc, &set);
    if (r == VK_SUCCESS) break;
    // A full pool is expected: move on to the next (or a new) one. A fresh pool that cannot
    // hold one set never will, so that is an error rather than an endless loop.
    if (fresh || (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)) {
      vk_check(r, "vkAllocateDescriptorSets");
    }
    ++current_;
  }

  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = {buffers[i]->handle(), 0, VK_WHOLE_SIZE};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                         nullptr);
  device_.hazards().note_set(set, buffers);
  if (NodeRecording* capture = device_.capture()) capture->note_set(set, buffers);
  return set;
}

void DescriptorArena::reset() {
  for (VkDescriptorPool pool : pools_) {
    vk_check(vkResetDescriptorPool(device_.handle(), pool, 0), "vkResetDescriptorPool");
  }
  current_ = 0;
}

}  // namespace kiln::gpu_compute
