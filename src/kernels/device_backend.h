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
#include <string_view>
#include <vector>

#include "kernels/device_counters.h"
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

// Why a node that its backend took at load time runs on the CPU for one run. These are the only
// causes: each is a fact the load-time placement could not know. Everything else is decided at
// load time, from the op's definition and the kernel's declared coverage (dtypes, ranks,
// attributes, constant inputs), and a wrong input is the definition's kiln::Error, as on the CPU.
enum class RunTimeCause {
  // A tensor, coordinate or shader loop beyond what this device can bind, store or index.
  DeviceLimit,
  // A shape the kernel does not cover (a rank, a layout, an empty axis), which the placement
  // could not see because the input shapes, or the values that decide them, were not fixed at
  // load time.
  ShapeOutsideKernel,
  // Host-read input values the kernel does not take (sequence lengths shorter than the sequence,
  // a zero integer divisor, an index out of range): the CPU kernel reports or handles them.
  InputValues,
  // An input of a dtype or kind (a sequence, an optional) that was not known at load time and
  // that the kernel does not take.
  InputKind,
};
std::string_view to_string(RunTimeCause cause);

// Thrown while a device kernel records when this run brings one of the run-time causes: the node
// runs on the CPU for this run instead.
struct RunOnCpu : std::runtime_error {
  RunOnCpu(RunTimeCause cause, const std::string& why) : std::runtime_error(why), cause(cause) {}
  RunTimeCause cause;
};

// Runs `f`, a backend's own planning of this run (a layout, a dispatch); a kiln::Error from it
// means the run is outside what the kernel plans for: RunOnCpu with `cause`, and the CPU kernel
// takes the node (and reports it, if the inputs are wrong). A definition's resolve_* is called
// directly instead: its error is the run's error on every backend.
template <class F>
auto or_run_on_cpu(RunTimeCause cause, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw RunOnCpu(cause, e.what());
  }
}

// `axis` of an input of rank `rank`, counted from the front. RunOnCpu (ShapeOutsideKernel) when
// it is outside [-rank, rank): the CPU kernel reports it.
int64_t non_negative_axis(int64_t axis, int64_t rank);

// What one device node had to move to the CPU at run time: how many runs, the cause and words of
// the latest.
struct RunTimeFallbackCount {
  uint64_t runs = 0;
  RunTimeCause last_cause = RunTimeCause::DeviceLimit;
  std::string last_reason;
};

class DeviceKernel {
 public:
  virtual ~DeviceKernel() = default;
  // Records the node's work. Returns false when this run brings a run-time cause (RunTimeCause):
  // the node then runs on the CPU for this run, its device inputs downloaded. Errors in the
  // inputs, and the device's own failures, throw kiln::Error.
  virtual bool record(DeviceOpRun& run) = 0;
  // The runs this node moved to the CPU so far.
  virtual RunTimeFallbackCount run_time_fallbacks() const = 0;
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
  // Each input's shape where shape inference fixed every dim at load time (nullopt otherwise,
  // and for absent inputs): a kernel decides what it covers from these at load time.
  std::vector<std::optional<Shape>> input_shapes;
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

// Every run-time fallback in this process, for tests and diagnostics; per node, the worker's
// placements() tell.
struct RunTimeFallbacks {
  uint64_t count = 0;
  std::string last_reason;
};
RunTimeFallbacks run_time_fallbacks();
void note_run_time_fallback(RunTimeCause cause, const std::string& reason);

// The first present input in [first, first + count) whose inferred dtype is not in `allowed`,
// for the backend to word its reason; inputs of unknown dtype are noted in the query's deferred
// dtype checks instead, to be checked per run.
std::optional<size_t> input_outside_dtypes(const DevicePlacementQuery& query,
                                           std::span<const DataType> allowed, size_t first,
                                           size_t count);

// Input k's shape when the placement knows every dim (DevicePlacementQuery::input_shapes).
const Shape* static_input_shape(const DevicePlacementQuery& query, size_t k);

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

  // What this backend asked of its device so far (Worker::device_counters).
  virtual const DeviceWorkCounters& counters() const = 0;
};

// Called from a job: a host tensor with the contents of device tensor `t`. Submits pending
// work and waits for it (blocking the job, not the caller of schedule). The device keeps the
// host copy, so several CPU readers download once.
Tensor download_to_host(const Tensor& t);

// The backend for `backend` (nullptr for Backend::Cpu) on `device` (WorkerOptions::device);
// kiln::Error when it is not built in or no device is usable.
std::unique_ptr<DeviceBackend> make_device_backend(Backend backend, std::string_view device = {});

}  // namespace kiln
