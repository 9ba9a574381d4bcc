#include "kernels/device_counters.h"

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

}  // namespace kiln
