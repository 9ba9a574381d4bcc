#include "runtime/run_profiler.h"

#include <algorithm>
#include <limits>
#include <string>

namespace kiln {
namespace {

std::string track_of(int thread) {
  return thread < 0 ? "caller thread" : "cpu worker " + std::to_string(thread);
}

// The node's reason for running on the CPU of a GPU worker: its placement, or a run-time
// fallback of a node placed on the device.
std::string fallback_reason(const CompiledNode& cn) {
  if (cn.device_kernel) return "fallback: this run's shapes or dtypes are beyond the device kernel";
  const size_t colon = cn.placement.find(": ");
  return "fallback: " + (colon == std::string::npos ? cn.placement : cn.placement.substr(colon + 2));
}

}  // namespace

void RunProfiler::begin_run() {
  run_start_ns_ = steady_now_ns();
  for (NodeTiming& t : nodes_) {
    t.ran = false;
    t.on_device = false;
    t.transfers.clear();
  }
}

Profile RunProfiler::build(const CompiledGraph& graph, Backend backend,
                           const DeviceTimings& device) const {
  Profile profile;
  const bool gpu_worker = graph.device != nullptr;
  const auto us = [&](int64_t ns) { return static_cast<double>(ns - run_start_ns_) / 1000.0; };
  const std::string queue = std::string(backend_name(backend)) + " queue";

  // The latest device interval per node, and the offset that puts the device clock on the
  // host's: the smallest shift after which no layer's device work starts before its job began
  // recording it (the clocks are not calibrated against each other).
  std::vector<const DeviceInterval*> interval(nodes_.size(), nullptr);
  for (const DeviceInterval& d : device.intervals) {
    if (d.id < interval.size()) interval[d.id] = &d;
  }
  int64_t offset = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (interval[i] && nodes_[i].ran && nodes_[i].on_device)
      offset = std::max(offset, nodes_[i].start_ns - static_cast<int64_t>(interval[i]->start_ns));
  }
  if (gpu_worker) profile.device_timing = device.method.empty() ? "CPU-side intervals (no device timer)" : device.method;

  for (size_t i = 0; i < nodes_.size(); ++i) {
    const NodeTiming& t = nodes_[i];
    if (!t.ran) continue;
    const CompiledNode& cn = graph.nodes[i];
    ProfileEvent e;
    e.name = cn.node->name.empty() ? cn.node->op_type + "#" + std::to_string(i) : cn.node->name;
    e.op_type = cn.node->op_type;
    e.track = track_of(t.thread);
    e.start_us = us(t.start_ns);
    e.duration_us = static_cast<double>(t.end_ns - t.start_ns) / 1000.0;
    if (t.on_device) {
      e.kind = ProfileEvent::Kind::Record;
      ProfileEvent d = e;
      d.kind = ProfileEvent::Kind::Device;
      d.track = queue;
      if (interval[i] && !device.method.empty()) {
        d.start_us = us(static_cast<int64_t>(interval[i]->start_ns) + offset);
        d.duration_us = static_cast<double>(interval[i]->end_ns - interval[i]->start_ns) / 1000.0;
      }
      profile.events.push_back(std::move(d));
    } else if (gpu_worker) {
      e.fallback = true;
      e.detail = fallback_reason(cn);
    }
    for (const TransferNote& n : t.transfers) {
      ProfileEvent x;
      x.kind = ProfileEvent::Kind::Transfer;
      const int slot = n.input >= 0 && static_cast<size_t>(n.input) < cn.inputs.size()
                           ? cn.inputs[static_cast<size_t>(n.input)]
                           : -1;
      x.name = std::string(n.upload ? "upload " : "download ") +
               (slot >= 0 ? graph.slot_names[static_cast<size_t>(slot)] : "data of " + e.name);
      x.track = e.track;
      x.start_us = us(n.start_ns);
      x.duration_us = static_cast<double>(n.end_ns - n.start_ns) / 1000.0;
      x.detail = std::to_string(n.bytes) + " bytes";
      profile.events.push_back(std::move(x));
    }
    profile.events.push_back(std::move(e));
  }
  std::stable_sort(profile.events.begin(), profile.events.end(),
                   [](const ProfileEvent& a, const ProfileEvent& b) { return a.start_us < b.start_us; });
  return profile;
}

}  // namespace kiln
