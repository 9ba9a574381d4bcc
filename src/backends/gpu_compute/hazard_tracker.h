// Barriers only where data flows. The tracker remembers which device memory the dispatches
// recorded since the last barrier read and write; a new dispatch needs a barrier before it only
// when it touches memory that such a dispatch wrote (read after write, write after write), or
// writes memory that such a dispatch reads (write after read: the executor's tensors reuse freed
// ranges of shared blocks). Independent dispatches — the branches of a graph, the heads of an
// attention — then follow each other with no barrier and may overlap on the GPU.
//
// Memory is compared by (VkDeviceMemory, byte range), not by VkBuffer, because buffers from one
// pool alias the same blocks. The state spans command buffers: a barrier orders everything
// submitted before it on the queue. Use under the command stream's lock.
#pragma once

#include <vulkan/vulkan.h>

#include <span>
#include <unordered_map>
#include <vector>

namespace kiln::gpu_compute {

class Buffer;

struct MemorySpan {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize begin = 0, end = 0;
  bool overlaps(const MemorySpan& o) const {
    return memory == o.memory && begin < o.end && o.begin < end;
  }
};

MemorySpan memory_span(const Buffer& buffer);

class HazardTracker {
 public:
  // The buffers bound in `set` (DescriptorArena::bind), for the dispatches that use it.
  void note_set(VkDescriptorSet set, std::span<const Buffer* const> buffers);

  // Before a dispatch with `set` that writes `written`: whether it must wait for the work since
  // the last barrier. Then notes its accesses (after a barrier, as the only ones).
  bool before_dispatch(VkDescriptorSet set, std::span<const Buffer* const> written);

  // Before a copy to (`writes`) or from a tensor's `buffer`: whether it must wait for dispatches
  // since the last barrier. Clears the state when it must: the caller records the barrier.
  bool before_transfer(const Buffer& buffer, bool writes);

 private:
  void clear();

  std::unordered_map<VkDescriptorSet, std::vector<MemorySpan>> sets_;
  std::vector<MemorySpan> reads_, writes_;  // since the last barrier
  bool unknown_ = false;  // a dispatch since the last barrier used a set never noted
};

}  // namespace kiln::gpu_compute
