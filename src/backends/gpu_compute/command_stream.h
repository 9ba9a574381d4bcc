// The executor's asynchronous command stream: work is recorded into a batch (one command buffer
// with its own descriptor sets), batches are submitted in order to the device's queue, and each
// submission signals the next value of one timeline semaphore. The host polls how far the
// queue has got (reached) or waits for a value (wait) without fences per submission. A batch is
// submitted when it holds enough dispatches, so the GPU starts early and one submission never
// runs for long; its command buffer, descriptor sets and everything handed to keep_alive are
// recycled once the device has passed its value.
//
// Recording is single-threaded: hold lock() while calling cmd(), arena(), keep_alive() and
// submit(). Jobs of a run record their nodes one after another under that lock.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"

namespace kiln::gpu_compute {

class CommandStream {
 public:
  // A batch is submitted after `dispatches_per_batch` dispatches or `work_per_batch` units of
  // work (multiply-adds or elements touched), whichever comes first.
  explicit CommandStream(Device& device, uint32_t dispatches_per_batch = 64,
                         uint64_t work_per_batch = uint64_t{1} << 27);
  ~CommandStream();  // waits for the device
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  std::unique_lock<std::recursive_mutex> lock() { return std::unique_lock(mutex_); }

  // The batch being recorded (begun on first use).
  VkCommandBuffer cmd();
  DescriptorArena& arena();
  // Keeps `object` alive until the device has finished the current batch (staging buffers,
  // tensors dropped while their last readers are still queued).
  void keep_alive(std::shared_ptr<void> object);
  // Counts a recorded node and its work; submits the batch when it is full.
  void dispatched(uint64_t work);
  // Submits the current batch if it holds anything. Returns the timeline value that is reached
  // once everything recorded so far has finished.
  uint64_t submit();
  // The value the current (unsubmitted) batch will signal; reached() of it means done.
  uint64_t pending_value() const { return next_value_; }

  // Polls without waiting.
  bool reached(uint64_t value) const;
  // Blocks until the device reaches `value` (which must have been submitted). kiln::Error on a
  // lost device or after a generous timeout.
  void wait(uint64_t value) const;

 private:
  struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    std::unique_ptr<DescriptorArena> arena;
    std::vector<std::shared_ptr<void>> keep_alive;
    uint64_t value = 0;
    uint32_t dispatches = 0;
    uint64_t work = 0;
  };
  void begin_batch();
  void recycle_finished();

  Device& device_;
  uint32_t dispatches_per_batch_;
  uint64_t work_per_batch_;
  std::recursive_mutex mutex_;  // a tensor released while recording re-enters
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::unique_ptr<Batch> current_;
  std::deque<std::unique_ptr<Batch>> in_flight_;
  std::vector<std::unique_ptr<Batch>> spare_;
  uint64_t next_value_ = 1;  // signalled by the next submission
  uint64_t submitted_value_ = 0;
};

}  // namespace kiln::gpu_compute
