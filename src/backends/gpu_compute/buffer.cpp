#include "backends/gpu_compute/buffer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

// Stand-in size for empty tensors; a multiple of 4 keeps float views and fills aligned.
constexpr VkDeviceSize kMinBufferBytes = 16;

// Shaders address buffers in 32-bit words, and a bool tensor (one byte per element) is written a
// whole word at a time, so every buffer spans whole words.
VkDeviceSize capacity_for(size_t bytes) {
  return std::max<VkDeviceSize>((VkDeviceSize{bytes} + 3) & ~VkDeviceSize{3}, kMinBufferBytes);
}

void check_range(const Buffer& buffer, size_t offset, size_t bytes, const char* what) {
  check(offset <= buffer.size() && bytes <= buffer.size() - offset,
        std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " +
            std::to_string(offset) + " do not fit a buffer of " + std::to_string(buffer.size()));
}

VkBufferMemoryBarrier barrier(VkBuffer buffer, VkAccessFlags src, VkAccessFlags dst) {
  VkBufferMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.buffer = buffer;
  b.offset = 0;
  b.size = VK_WHOLE_SIZE;
  return b;
}

}  // namespace

void Buffer::create_handle(Device& device) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = capacity_;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (use_ == MemoryUse::DeviceLocal) info.usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(device.handle(), &info, nullptr, &buffer_), "vkCreateBuffer");
}

Buffer::Buffer(Device& device, size_t bytes, MemoryUse use)
    : device_(&device), size_(bytes), capacity_(capacity_for(bytes)), use_(use) {
  try {
    create_handle(device);
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex =
        use == MemoryUse::DeviceLocal
            ? device.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
            // Cached memory makes the host's reads of downloaded data fast where it exists.
            : device.find_memory_type(
                  req.memoryTypeBits,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                  VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    vk_check(vkAllocateMemory(device.handle(), &alloc, nullptr, &memory_), "vkAllocateMemory");
    vk_check(vkBindBufferMemory(device.handle(), buffer_, memory_, 0), "vkBindBufferMemory");
    if (use == MemoryUse::Staging) {
      void* p = nullptr;
      vk_check(vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
      mapped_ = static_cast<std::byte*>(p);
    }
  } catch (...) {
    release();
    throw;
  }
}

Buffer::Buffer(Device& device, MemoryPool& pool, size_t bytes)
    : device_(&device), size_(bytes), capacity_(capacity_for(bytes)), use_(pool.use()) {
  try {
    create_handle(device);
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
    range_ = pool.allocate(req);
    pool_ = &pool;
    vk_check(vkBindBufferMemory(device.handle(), buffer_, range_.memory, range_.offset),
             "vkBindBufferMemory");
    mapped_ = range_.mapped;
  } catch (...) {
    release();
    throw;
  }
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this == &other) return *this;
  release();
  device_ = std::exchange(other.device_, nullptr);
  buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
  memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  use_ = other.use_;
  mapped_ = std::exchange(other.mapped_, nullptr);
  pool_ = std::exchange(other.pool_, nullptr);
  range_ = std::exchange(other.range_, MemoryRange{});
  return *this;
}

void Buffer::release() noexcept {
  if (!device_) return;
  // Freeing mapped memory unmaps it implicitly.
  if (buffer_) vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_) vkFreeMemory(device_->handle(), memory_, nullptr);
  if (pool_) pool_->free(range_);
  pool_ = nullptr;
  range_ = MemoryRange{};
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  device_ = nullptr;
}

void upload(Device& device, const Buffer& dst, std::span<const std::byte> bytes, size_t offset) {
  check_range(dst, offset, bytes.size(), "Vulkan upload");
  if (bytes.empty()) return;
  Buffer staging(device, bytes.size(), MemoryUse::Staging);
  std::memcpy(staging.mapped(), bytes.data(), bytes.size());
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    VkBufferCopy region{0, offset, bytes.size()};
    vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
    // Makes the copy available to every later shader or transfer in submission order, so
    // callers need no barrier of their own before using the buffer.
    const VkBufferMemoryBarrier b =
        barrier(dst.handle(), VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, nullptr, 1, &b, 0, nullptr);
  });
  DeviceWorkCounters::add(device.counters().barriers);
  DeviceWorkCounters::add(device.counters().bytes_uploaded, bytes.size());
}

void download(Device& device, const Buffer& src, std::span<std::byte> bytes, size_t offset) {
  check_range(src, offset, bytes.size(), "Vulkan download");
  if (bytes.empty()) return;
  Buffer staging(device, bytes.size(), MemoryUse::Staging);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    VkBufferCopy region{offset, 0, bytes.size()};
    vkCmdCopyBuffer(cmd, src.handle(), staging.handle(), 1, &region);
    // The fence alone does not make device writes visible to the host; this barrier does.
    const VkBufferMemoryBarrier b =
        barrier(staging.handle(), VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
                         nullptr, 1, &b, 0, nullptr);
  });
  DeviceWorkCounters::add(device.counters().barriers);
  DeviceWorkCounters::add(device.counters().bytes_downloaded, bytes.size());
  std::memcpy(bytes.data(), staging.mapped(), bytes.size());
}

}  // namespace kiln::gpu_compute
