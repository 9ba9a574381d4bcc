// Storage buffers (tensors, device-local memory) and staging buffers (host-visible, mapped),
// with synchronous byte upload and download through a staging buffer.
//
//   Buffer x(device, bytes, MemoryUse::DeviceLocal);
//   upload(device, x, std::as_bytes(std::span(values)));
//   download(device, x, std::as_writable_bytes(std::span(result)));
//
// A buffer either owns one VkDeviceMemory allocation (tests, one-off transfers) or takes a
// range of a MemoryPool's blocks (the executor's tensors and staging).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <span>

#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/memory_pool.h"

namespace kiln::gpu_compute {

enum class MemoryUse {
  DeviceLocal,  // storage buffer for shaders; also a transfer source and destination
  Staging,      // host-visible and coherent, persistently mapped; transfers only
};

class Buffer {
 public:
  Buffer() = default;
  // `bytes` may be 0: Vulkan forbids empty buffers, so a small one stands in and descriptors
  // for empty tensors stay valid.
  Buffer(Device& device, size_t bytes, MemoryUse use);
  // A buffer over a range of `pool`'s memory, returned to the pool on destruction.
  Buffer(Device& device, MemoryPool& pool, size_t bytes);
  ~Buffer() { release(); }
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  size_t size() const { return size_; }                      // as requested
  VkDeviceSize allocated_size() const { return capacity_; }  // what the VkBuffer spans
  MemoryUse use() const { return use_; }
  std::byte* mapped() const { return mapped_; }  // staging buffers only, else nullptr
  // The memory behind the buffer: buffers from one pool may share a block.
  VkDeviceMemory memory() const { return pool_ ? range_.memory : memory_; }
  VkDeviceSize memory_offset() const { return pool_ ? range_.offset : 0; }

 private:
  void release() noexcept;
  void create_handle(Device& device);

  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  size_t size_ = 0;
  VkDeviceSize capacity_ = 0;
  MemoryUse use_ = MemoryUse::DeviceLocal;
  std::byte* mapped_ = nullptr;
  MemoryPool* pool_ = nullptr;
  MemoryRange range_;
};

// Copies `bytes` into `dst` at `offset` and waits until the copy is visible to later shaders
// and transfers. kiln::Error when the range does not fit.
void upload(Device& device, const Buffer& dst, std::span<const std::byte> bytes, size_t offset = 0);
// Waits for the copy of `bytes.size()` bytes from `src` at `offset` into `bytes`.
void download(Device& device, const Buffer& src, std::span<std::byte> bytes, size_t offset = 0);

}  // namespace kiln::gpu_compute
