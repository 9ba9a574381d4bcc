#include "backends/gpu_compute/memory_pool.h"

#include <algorithm>
#include <optional>
#include <string>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

MemoryPool::MemoryPool(Device& device, MemoryUse use, VkDeviceSize block_bytes)
    : device_(device), use_(use), block_bytes_(block_bytes) {}

MemoryPool::~MemoryPool() {
  for (auto& b : blocks_) vkFreeMemory(device_.handle(), b->memory, nullptr);
}

MemoryPool::Block& MemoryPool::new_block(VkDeviceSize bytes, uint32_t type) {
  auto block = std::make_unique<Block>();
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = bytes;
  alloc.memoryTypeIndex = type;
  vk_check(vkAllocateMemory(device_.handle(), &alloc, nullptr, &block->memory), "vkAllocateMemory");
  block->size = bytes;
  block->type = type;
  if (use_ == MemoryUse::Staging) {
    void* p = nullptr;
    const VkResult mapped = vkMapMemory(device_.handle(), block->memory, 0, VK_WHOLE_SIZE, 0, &p);
    if (mapped != VK_SUCCESS) {
      vkFreeMemory(device_.handle(), block->memory, nullptr);
      throw_vk_error("vkMapMemory", mapped);
    }
    block->mapped = static_cast<std::byte*>(p);
  }
  block->free.emplace(0, bytes);
  blocks_.push_back(std::move(block));
  return *blocks_.back();
}

MemoryRange MemoryPool::allocate(const VkMemoryRequirements& req) {
  const uint32_t type =
      use_ == MemoryUse::DeviceLocal
          ? device_.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
          // Cached memory makes the host's reads of downloaded data fast where it exists.
          : device_.find_memory_type(
                req.memoryTypeBits,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  const VkDeviceSize align = req.alignment ? req.alignment : 1;
  std::lock_guard lock(mutex_);
  auto take = [&](size_t index, Block& b) -> std::optional<MemoryRange> {
    for (auto it = b.free.begin(); it != b.free.end(); ++it) {
      const VkDeviceSize start = (it->first + align - 1) / align * align;
      const VkDeviceSize end = it->first + it->second;
      if (start + req.size > end) continue;
      const VkDeviceSize free_offset = it->first;
      b.free.erase(it);
      if (start > free_offset) b.free.emplace(free_offset, start - free_offset);
      if (start + req.size < end) b.free.emplace(start + req.size, end - start - req.size);
      used_ += req.size;
      return MemoryRange{b.memory, start, req.size, b.mapped ? b.mapped + start : nullptr, index};
    }
    return std::nullopt;
  };
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i]->type != type) continue;
    if (auto r = take(i, *blocks_[i])) return *r;
  }
  // Big tensors get a block of their own, rounded so it is reusable by similar ones.
  const VkDeviceSize bytes = std::max(block_bytes_, (req.size + 0xFFFF) & ~VkDeviceSize{0xFFFF});
  Block& b = new_block(bytes, type);
  return *take(blocks_.size() - 1, b);
}

void MemoryPool::free(const MemoryRange& range) {
  if (!range.memory) return;
  std::lock_guard lock(mutex_);
  Block& b = *blocks_.at(range.block);
  used_ -= range.size;
  VkDeviceSize offset = range.offset;
  VkDeviceSize size = range.size;
  auto next = b.free.lower_bound(offset);
  if (next != b.free.end() && offset + size == next->first) {
    size += next->second;
    next = b.free.erase(next);
  }
  if (next != b.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  b.free.emplace(offset, size);
}

VkDeviceSize MemoryPool::reserved_bytes() const {
  std::lock_guard lock(mutex_);
  VkDeviceSize n = 0;
  for (const auto& b : blocks_) n += b->size;
  return n;
}

VkDeviceSize MemoryPool::used_bytes() const {
  std::lock_guard lock(mutex_);
  return used_;
}

}  // namespace kiln::gpu_compute
