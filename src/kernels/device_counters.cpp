#include "kernels/device_counters.h"

#include <chrono>
#include <ctime>

namespace kiln {

DeviceCounters DeviceWorkCounters::snapshot() const {
  DeviceCounters c;
  c.dispatches = dispatches.load(std::memory_order_relaxed);
  c.barriers = barriers.load(std::memory_order_relaxed);
  c.submissions = submissions.load(std::memory_order_relaxed);
  c.bytes_uploaded = bytes_uploaded.load(std::memory_order_relaxed);
  c.bytes_downloaded = bytes_downloaded.load(std::memory_order_relaxed);
  c.recording_time = std::chrono::nanoseconds(recording_ns.load(std::memory_order_relaxed));
  c.nodes_recorded = nodes_recorded.load(std::memory_order_relaxed);
  c.nodes_replayed = nodes_replayed.load(std::memory_order_relaxed);
  return c;
}

uint64_t RecordingTimer::thread_cpu_ns() {
#ifdef CLOCK_THREAD_CPUTIME_ID
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
  }
#endif
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace kiln
