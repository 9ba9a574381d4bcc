// What a GPU backend asked of its device, counted as the work is recorded: the figures that say
// how much CPU and driver work a run costs, also on a software driver where device time means
// little. Each backend keeps one set per worker (in the context its tensors share, so a tensor
// that outlives the worker still counts its download); Worker::device_counters reads it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "kiln/worker.h"

namespace kiln {

struct DeviceWorkCounters {
  std::atomic<uint64_t> dispatches{0};  // compute dispatches or draws
  std::atomic<uint64_t> barriers{0};
  std::atomic<uint64_t> submissions{0};
  std::atomic<uint64_t> bytes_uploaded{0};
  std::atomic<uint64_t> bytes_downloaded{0};
  std::atomic<uint64_t> recording_ns{0};
  std::atomic<uint64_t> nodes_recorded{0};  // by their kernels
  std::atomic<uint64_t> nodes_replayed{0};  // from the node's previous recording

  static void add(std::atomic<uint64_t>& counter, uint64_t n = 1) {
    counter.fetch_add(n, std::memory_order_relaxed);
  }
  DeviceCounters snapshot() const;
};

// Adds the CPU time from its construction to its destruction to `counters.recording_ns`.
class RecordingTimer {
 public:
  explicit RecordingTimer(DeviceWorkCounters& counters)
      : counters_(counters), start_(std::chrono::steady_clock::now()) {}
  ~RecordingTimer() {
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    DeviceWorkCounters::add(
        counters_.recording_ns,
        static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()));
  }
  RecordingTimer(const RecordingTimer&) = delete;
  RecordingTimer& operator=(const RecordingTimer&) = delete;

 private:
  DeviceWorkCounters& counters_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kiln
