#include "backends/gpu_compute/command.h"

#include "backends/gpu_compute/vk_check.h"

namespace kiln::gpu_compute {
namespace {

// Generous enough for a slow software driver on a loaded machine; a hung GPU still surfaces as
// an error instead of hanging the caller forever.
constexpr uint64_t kFenceTimeoutNs = 120'000'000'000ull;

// Frees the command buffer and fence on every path, including exceptions from `record`.
struct OneShot {
  Device& device;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  ~OneShot() {
    if (fence) vkDestroyFence(device.handle(), fence, nullptr);
    if (cmd) {
      std::lock_guard lock(device.submit_mutex());
      vkFreeCommandBuffers(device.handle(), device.command_pool(), 1, &cmd);
    }
  }
};

}  // namespace

void submit_and_wait(Device& device, const std::function<void(VkCommandBuffer)>& record) {
  OneShot shot{device};
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = device.command_pool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  // Recording touches the pool too (it owns the command memory), so it happens under the lock;
  // `record` must therefore not submit work itself.
  {
    std::lock_guard lock(device.submit_mutex());
    vk_check(vkAllocateCommandBuffers(device.handle(), &alloc, &shot.cmd),
             "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(shot.cmd, &begin), "vkBeginCommandBuffer");
    record(shot.cmd);
    vk_check(vkEndCommandBuffer(shot.cmd), "vkEndCommandBuffer");
  }

  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  vk_check(vkCreateFence(device.handle(), &fence_info, nullptr, &shot.fence), "vkCreateFence");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &shot.cmd;
  {
    std::lock_guard lock(device.submit_mutex());
    vk_check(vkQueueSubmit(device.queue(), 1, &submit, shot.fence), "vkQueueSubmit");
  }
  DeviceWorkCounters::add(device.counters().submissions);
  // Waiting (not polling) leaves the cores to lavapipe's worker threads.
  vk_check(vkWaitForFences(device.handle(), 1, &shot.fence, VK_TRUE, kFenceTimeoutNs),
           "vkWaitForFences");
}

}  // namespace kiln::gpu_compute
