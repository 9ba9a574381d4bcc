#include "backends/gpu_compute/command_stream.h"

#include <string>

#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

// Generous enough for a slow software driver on a loaded machine; a hung GPU still surfaces as
// an error instead of hanging forever.
constexpr uint64_t kWaitTimeoutNs = 300'000'000'000ull;

}  // namespace

CommandStream::CommandStream(Device& device, uint32_t dispatches_per_batch, uint64_t work_per_batch)
    : device_(device),
      dispatches_per_batch_(dispatches_per_batch),
      work_per_batch_(work_per_batch) {
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  vk_check(vkCreateSemaphore(device.handle(), &info, nullptr, &timeline_), "vkCreateSemaphore");
}

CommandStream::~CommandStream() {
  // Nothing may be destroyed while the device still uses it.
  vkDeviceWaitIdle(device_.handle());
  auto free_batch = [&](Batch& b) {
    if (!b.cmd) return;
    std::lock_guard lock(device_.submit_mutex());
    vkFreeCommandBuffers(device_.handle(), device_.command_pool(), 1, &b.cmd);
  };
  if (current_) free_batch(*current_);
  for (auto& b : in_flight_) free_batch(*b);
  for (auto& b : spare_) free_batch(*b);
  vkDestroySemaphore(device_.handle(), timeline_, nullptr);
}

void CommandStream::begin_batch() {
  recycle_finished();
  if (!spare_.empty()) {
    current_ = std::move(spare_.back());
    spare_.pop_back();
  } else {
    current_ = std::make_unique<Batch>();
    current_->arena = std::make_unique<DescriptorArena>(device_);
  }
  std::lock_guard lock(device_.submit_mutex());
  if (current_->cmd) {
    // The device pool is transient and not resettable per buffer: free and allocate anew.
    vkFreeCommandBuffers(device_.handle(), device_.command_pool(), 1, &current_->cmd);
    current_->cmd = VK_NULL_HANDLE;
  }
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = device_.command_pool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  vk_check(vkAllocateCommandBuffers(device_.handle(), &alloc, &current_->cmd),
           "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(vkBeginCommandBuffer(current_->cmd, &begin), "vkBeginCommandBuffer");
  current_->value = next_value_;
  current_->dispatches = 0;
  current_->work = 0;
}

void CommandStream::recycle_finished() {
  uint64_t done = 0;
  vk_check(vkGetSemaphoreCounterValue(device_.handle(), timeline_, &done),
           "vkGetSemaphoreCounterValue");
  while (!in_flight_.empty() && in_flight_.front()->value <= done) {
    std::unique_ptr<Batch> b = std::move(in_flight_.front());
    in_flight_.pop_front();
    b->keep_alive.clear();
    b->arena->reset();
    spare_.push_back(std::move(b));
  }
}

VkCommandBuffer CommandStream::cmd() {
  if (!current_) begin_batch();
  return current_->cmd;
}

DescriptorArena& CommandStream::arena() {
  cmd();
  return *current_->arena;
}

void CommandStream::keep_alive(std::shared_ptr<void> object) {
  cmd();
  current_->keep_alive.push_back(std::move(object));
}

void CommandStream::dispatched(uint64_t work) {
  cmd();
  current_->work += work;
  if (++current_->dispatches >= dispatches_per_batch_ || current_->work >= work_per_batch_)
    submit();
}

uint64_t CommandStream::submit() {
  if (!current_) return submitted_value_;
  vk_check(vkEndCommandBuffer(current_->cmd), "vkEndCommandBuffer");
  VkTimelineSemaphoreSubmitInfo timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.signalSemaphoreValueCount = 1;
  timeline.pSignalSemaphoreValues = &current_->value;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &timeline;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &current_->cmd;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline_;
  {
    std::lock_guard lock(device_.submit_mutex());
    vk_check(vkQueueSubmit(device_.queue(), 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit");
  }
  DeviceWorkCounters::add(device_.counters().submissions);
  submitted_value_ = next_value_++;
  in_flight_.push_back(std::move(current_));
  return submitted_value_;
}

bool CommandStream::reached(uint64_t value) const {
  uint64_t done = 0;
  vk_check(vkGetSemaphoreCounterValue(device_.handle(), timeline_, &done),
           "vkGetSemaphoreCounterValue");
  return done >= value;
}

void CommandStream::wait(uint64_t value) const {
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &timeline_;
  info.pValues = &value;
  const VkResult r = vkWaitSemaphores(device_.handle(), &info, kWaitTimeoutNs);
  if (r == VK_TIMEOUT) throw Error("the Vulkan device did not finish its work within 300 s");
  vk_check(r, "vkWaitSemaphores");
}

}  // namespace kiln::gpu_compute
