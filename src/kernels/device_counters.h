// What a GPU backend asked of its device, counted as the work is recorded: the figures that say
// how much CPU and driver work a run costs, also on a software driver where device time means
// little. Each backend keeps one set per worker (in the context its tensors share, so a tensor
// that outlives the worker still counts its download); Worker::device_counters reads it.
#pragma once

#include <atomic>
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

// Adds the CPU time the constructing thread spends from the timer's construction to its
// destruction to `counters.recording_ns`: the thread's CPU clock, so that time the thread spends
// descheduled (a busy host, a driver waiting) does not count as recording work.
class RecordingTimer {
 public:
  explicit RecordingTimer(DeviceWorkCounters& counters)
      : counters_(counters), start_ns_(thread_cpu_ns()) {}
  ~RecordingTimer() {
    const uint64_t end_ns = thread_cpu_ns();
    DeviceWorkCounters::add(counters_.recording_ns, end_ns > start_ns_ ? end_ns - start_ns_ : 0);
  }
  RecordingTimer(const RecordingTimer&) = delete;
  RecordingTimer& operator=(const RecordingTimer&) = delete;

  // The calling thread's CPU time in nanoseconds (where the platform has no per-thread clock,
  // a monotonic clock).
  static uint64_t thread_cpu_ns();

 private:
  DeviceWorkCounters& counters_;
  uint64_t start_ns_;
};

}  // namespace kiln
