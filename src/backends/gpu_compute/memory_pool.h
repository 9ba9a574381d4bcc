// Sub-allocation of buffer memory from large VkDeviceMemory blocks. Drivers cap the number of
// allocations (4096 on many) and each vkAllocateMemory is slow, so tensors take ranges of
// shared blocks instead; a tensor larger than a block gets a block of its own. Free ranges are
// coalesced with their neighbours. Thread-safe.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/gpu_compute/device.h"

namespace kiln::gpu_compute {

enum class MemoryUse;

struct MemoryRange {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  std::byte* mapped = nullptr;  // host address of `offset` in host-visible pools
  size_t block = 0;             // index of the block, for freeing
};

class MemoryPool {
 public:
  // `use` decides the memory type, as for a Buffer of that use.
  MemoryPool(Device& device, MemoryUse use, VkDeviceSize block_bytes = VkDeviceSize{64} << 20);
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A range satisfying `requirements` (size, alignment, memory type bits).
  MemoryRange allocate(const VkMemoryRequirements& requirements);
  void free(const MemoryRange& range);

  MemoryUse use() const { return use_; }
  VkDeviceSize reserved_bytes() const;  // in blocks
  VkDeviceSize used_bytes() const;      // handed out

 private:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    uint32_t type = 0;
    std::byte* mapped = nullptr;
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size, coalesced
  };
  Block& new_block(VkDeviceSize bytes, uint32_t type);

  Device& device_;
  MemoryUse use_;
  VkDeviceSize block_bytes_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  VkDeviceSize used_ = 0;
};

}  // namespace kiln::gpu_compute
