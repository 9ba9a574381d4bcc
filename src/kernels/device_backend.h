// What the runtime needs from a GPU backend (Vulkan compute, GLES pixel): which nodes it runs
// natively, a kernel per such node that records the node's GPU work, and moving values between
// the host and the device. Everything else — the job graph, dependencies, outputs and readbacks
// — is the same executor as on the CPU: a device node's job records its work and returns, so the
// job system stays the only scheduler and `schedule` never blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "kiln/worker.h"

namespace kiln {

// A value slot's device copy of host data (a graph input, a CPU node's output, a constant),
// owned by the execution so each host value is uploaded once per run (constants once).
using DeviceMirror = std::shared_ptr<void>;

// What a device kernel sees while its node's job records it. Inputs are host tensors (constants,
// graph inputs, CPU-resident values, outputs of CPU nodes) or device tensors (outputs of other
// device nodes); the kernel sets every wanted output to a device or host tensor.
struct DeviceOpRun {
  std::span<const Tensor> inputs;
  std::span<Tensor> outputs;
  // mirrors[k]: where the device copy of host input k is kept; empty for device inputs.
  std::span<DeviceMirror*> mirrors;
  // constant[k]: input k is an initializer (its mirror lives as long as the worker).
  std::span<const char> constant;
};

// Thrown while a device kernel records when this run's inputs are beyond it — a tensor larger
// than the device can bind or store, a rank or layout the shader lacks, or inputs the CPU kernel
// will reject with its own message: the node runs on the CPU for this run instead.
struct RunOnCpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `f`; a kiln::Error from it (a shape the kernel does not take, or wrong inputs the CPU
// kernel will report in its own words) becomes RunOnCpu.
template <class F>
auto or_run_on_cpu(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw RunOnCpu(e.what());
  }
}

// `axis` of an input of rank `rank`, counted from the front. RunOnCpu when it is outside
// [-rank, rank): the CPU kernel reports it.
int64_t non_negative_axis(int64_t axis, int64_t rank);

class DeviceKernel {
 public:
  virtual ~DeviceKernel() = default;
  // Records the node's work. Returns false when this run's shapes are beyond what the device can
  // bind (a tensor over the device's buffer range or texture size): the node then runs on the
  // CPU for this run, its device inputs downloaded. Errors in the inputs throw kiln::Error.
  virtual bool record(DeviceOpRun& run) = 0;
};

// (input index, the dtypes the kernel takes there), checked per run for inputs whose dtype is
// unknown at load time.
using DeferredDtypeChecks = std::vector<std::pair<size_t, std::vector<DataType>>>;

// Load-time facts about one node, for deciding its placement.
struct DevicePlacementQuery {
  const NodeInfo& info;
  // Inferred dtype of each input and output (DataType::Undefined where unknown or absent).
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  // Inputs whose contents decide shapes (the CPU-residency analysis): they arrive as host
  // tensors.
  std::vector<bool> input_on_cpu;
  // Some output is read for its contents by a shape-deciding consumer: it must be on the host.
  bool output_on_cpu = false;
  // Inputs whose dtype shape inference could not tell (a custom op's output): the backend notes
  // here which dtypes its kernel takes, and a run that brings another one runs the node on the
  // CPU.
  mutable DeferredDtypeChecks deferred_dtype_checks;
};

// Device nodes that ran on the CPU at run time in this process (a shape, size or dtype its
// kernel does not take), and the reason of the latest: placements() tells what runs where at
// load time, this what a run then had to move back to the CPU. For tests and diagnostics.
struct RunTimeFallbacks {
  uint64_t count = 0;
  std::string last_reason;
};
RunTimeFallbacks run_time_fallbacks();
void note_run_time_fallback(const std::string& reason);

// The first present input in [first, first + count) whose inferred dtype is not in `allowed`,
// for the backend to word its reason; inputs of unknown dtype are noted in the query's deferred
// dtype checks instead, to be checked per run.
std::optional<size_t> input_outside_dtypes(const DevicePlacementQuery& query,
                                           std::span<const DataType> allowed, size_t first,
                                           size_t count);

// For variadic ops (Sum, Max, Min, Mean): at least one input, none of them left out; false with
// `reason` otherwise (the CPU kernel then reports the node).
bool every_input_present(const NodeInfo& info, std::string& reason);

// Whether a run's inputs are what a device kernel compiled for `query` takes: tensors (not
// sequences or optionals) of the dtypes its deferred checks allow. Otherwise the node runs on the
// CPU for that run.
bool inputs_fit(std::span<const Tensor> inputs, const DeferredDtypeChecks& dtype_checks);

// One profiled layer's work on the device, in the device's clock (nanoseconds).
struct DeviceInterval {
  uint32_t id = 0;  // what the runtime passed to record_timed
  uint64_t start_ns = 0, end_ns = 0;
};
struct DeviceTimings {
  std::vector<DeviceInterval> intervals;
  // How they were measured ("Vulkan timestamp queries"); empty: the backend has no device
  // clock, and the runtime shows the CPU-side intervals of the layers' recording instead.
  std::string method;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual Backend kind() const = 0;
  // The device in words ("llvmpipe (LLVM 15.0.6, 256 bits), Vulkan 1.3.230").
  virtual std::string description() const = 0;

  // A kernel when the node runs natively; otherwise nullptr and `reason` says why it falls back.
  virtual std::unique_ptr<DeviceKernel> compile(const DevicePlacementQuery& query,
                                                std::string& reason) = 0;

  // Starts the device on everything recorded so far (end of a run, before a wait).
  virtual void flush() = 0;

  // Profiling (WorkerOptions::profile): records like kernel.record(run) and times on the device
  // the work recorded, under `id`. The default records without timing.
  virtual bool record_timed(DeviceKernel& kernel, DeviceOpRun& run, uint32_t id) {
    return kernel.record(run);
  }
  // Waits for the work timed so far and hands its intervals over (each once).
  virtual DeviceTimings take_timings() { return {}; }
};

// Called from a job: a host tensor with the contents of device tensor `t`. Submits pending
// work and waits for it (blocking the job, not the caller of schedule). The device keeps the
// host copy, so several CPU readers download once.
Tensor download_to_host(const Tensor& t);

// The backend for `backend` (nullptr for Backend::Cpu) on `device` (WorkerOptions::device);
// kiln::Error when it is not built in or no device is usable.
std::unique_ptr<DeviceBackend> make_device_backend(Backend backend, std::string_view device = {});

}  // namespace kiln
