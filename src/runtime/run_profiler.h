// The per-run record behind WorkerOptions::profile: each layer's job notes when it started and
// ended, on which worker thread, whether it recorded device work or ran a CPU kernel, and the
// transfers it made. Each job writes only its own node's entry, so nothing is locked; with
// profiling off the execution holds no profiler and pays one pointer test per layer.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/device_backend.h"
#include "kernels/transfer_timing.h"
#include "kiln/profile.h"
#include "runtime/compiled_graph.h"

namespace kiln {

struct NodeTiming {
  int64_t start_ns = 0, end_ns = 0;  // steady_clock
  int thread = -1;                   // job-system worker index; -1: the caller's thread
  bool ran = false;                  // this run reached the node
  bool on_device = false;            // the job recorded device work (else ran the CPU kernel)
  std::vector<TransferNote> transfers;
};

class RunProfiler {
 public:
  explicit RunProfiler(size_t nodes) : nodes_(nodes) {}
  void begin_run();
  NodeTiming& node(size_t index) { return nodes_[index]; }

  // The run as a Profile. `device` are the backend's timings (ids are node indices); where a
  // node has several, the latest counts.
  Profile build(const CompiledGraph& graph, Backend backend, const DeviceTimings& device) const;

 private:
  std::vector<NodeTiming> nodes_;
  int64_t run_start_ns_ = 0;
};

}  // namespace kiln
