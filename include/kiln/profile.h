// kiln::Profile — where one run's time went, layer by layer, on every backend.
//
//   kiln::Worker worker(model, kiln::Backend::GpuCompute, {.profile = true});
//   worker.schedule({{"x", x}});
//   kiln::Profile p = worker.profile();           // waits for the run and its device timings
//   for (const kiln::OpTime& op : p.by_op()) std::cout << op.op_type << " " << op.share << "\n";
//   std::ofstream("trace.json") << p.to_chrome_trace();   // chrome://tracing, ui.perfetto.dev
//
// On the CPU each layer is timed in its job (on the worker thread that ran it). On a GPU
// backend the job's recording is timed on the CPU and the layer's device work on the GPU
// queue: with Vulkan timestamp queries, with OpenGL timer queries where the driver has them,
// and otherwise with CPU-side intervals around each layer's draws (device_timing says which).
#pragma once

#include <string>
#include <vector>

#include "kiln/export.h"

namespace kiln {

struct ProfileEvent {
  enum class Kind {
    Layer,     // a layer run by a CPU kernel (on a GPU worker: a fallback, see `detail`)
    Record,    // a GPU layer's job recording its device work (CPU time)
    Device,    // a GPU layer's work on the device queue
    Transfer,  // a value moved between host and device
  };
  Kind kind = Kind::Layer;
  std::string name;     // the node's name, or for a transfer what moved ("download conv1_out")
  std::string op_type;  // the node's op; empty for transfers
  std::string track;    // "cpu worker 3", "caller thread", "gpu-compute queue"
  double start_us = 0;  // from the start of the run (schedule)
  double duration_us = 0;
  // A fallback's reason ("fallback: ..."), a transfer's size ("4096 bytes"); else empty.
  std::string detail;
  bool fallback = false;  // a node of a GPU worker that ran on the CPU
};

// The time of one op type over a run: the layers' CPU time on a CPU worker; on a GPU worker
// the device time of GPU layers and the CPU time of the layers that fell back.
struct OpTime {
  std::string op_type;
  int count = 0;         // layers of this op
  double total_us = 0;   // summed over those layers
  double share = 0;      // of the total over all ops, 0..1
};

struct KILN_API Profile {
  std::vector<ProfileEvent> events;  // by start time
  // How GPU layers were timed: "Vulkan timestamp queries", "OpenGL timer queries",
  // "CPU-side intervals (no timer queries)", or empty on a CPU worker.
  std::string device_timing;

  // Op types by total time, largest first.
  std::vector<OpTime> by_op() const;
  // The run as a Chrome trace (JSON Trace Event Format): one track per CPU worker thread (and
  // the caller's thread for schedule_iterable), one per GPU queue; transfers and fallbacks are
  // events of their own category ("transfer", "fallback").
  std::string to_chrome_trace() const;
};

}  // namespace kiln
