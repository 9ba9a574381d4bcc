// Per-layer device timing for the profiler: a pair of timestamp queries around the work a
// layer records, read back once the stream has passed them. Both timestamps are written at
// the bottom of the pipe, so a layer's interval runs from the end of the work before it to the
// end of its own: with the barriers between layers, that is its time on the queue.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "backends/gpu_compute/command_stream.h"
#include "backends/gpu_compute/device.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_compute {

class Timestamps {
 public:
  Timestamps(Device& device, CommandStream& stream);
  ~Timestamps();
  Timestamps(const Timestamps&) = delete;
  Timestamps& operator=(const Timestamps&) = delete;

  // False where the compute queue has no timestamps (timestampValidBits == 0).
  bool supported() const { return pool_ != VK_NULL_HANDLE; }

  // Bracket a layer's recording; the caller holds the stream's lock throughout. `keep` false
  // drops the pair (the layer ran on the CPU after all).
  void begin(uint32_t id);
  void end(bool keep);
  // Waits for the stream and hands over the intervals of every kept pair so far.
  DeviceTimings take();

 private:
  void collect();  // submits, waits, reads every written pair into done_

  Device& device_;
  CommandStream& stream_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t capacity_ = 0;  // pairs
  double period_ns_ = 1;   // nanoseconds per tick
  uint64_t mask_ = ~uint64_t{0};
  std::vector<int64_t> ids_;  // per written pair: its id, or -1 when dropped
  std::vector<DeviceInterval> done_;
};

}  // namespace kiln::gpu_compute
