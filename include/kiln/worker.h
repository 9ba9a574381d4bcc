// kiln::Worker — runs a model on one backend, asynchronously.
//
//   kiln::Worker worker(model, kiln::Backend::Cpu);
//   worker.schedule({{"input", x}});                    // returns at once
//   kiln::Tensor y = worker.peek_output("logits").readback_and_clone();
//
// A Worker is used from one thread at a time; any number of workers (on one model or many)
// can run at once from different threads, sharing one CPU job system.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/export.h"
#include "kiln/model.h"
#include "kiln/profile.h"
#include "kiln/tensor.h"

namespace kiln {

enum class Backend { Cpu, GpuCompute, GpuPixel };
KILN_API std::string_view backend_name(Backend b);      // "cpu", "gpu-compute", "gpu-pixel"
KILN_API Backend parse_backend(std::string_view name);  // throws kiln::Error for an unknown name

struct WorkerOptions {
  int num_threads = 0;  // CPU job-system threads; 0: every hardware thread (or KILN_NUM_THREADS)
  bool strict = false;  // fail instead of falling back to the CPU for ops a GPU backend lacks
  // Hold every layer to its op's definition, failing the run with a kiln::Error naming the layer
  // when it drifts: every output a CPU layer produces is compared with the dtype and shape the
  // load-time shape inference predicted, and a GPU layer placed with every input's shape and
  // dtype known may go back to the CPU at run time only for a device limit or for input values
  // (sequence lengths, indices) it reads on the host. For tests and
  // debugging: it costs a comparison per layer.
  bool verify_shapes = false;
  // The GPU device of a GpuCompute or GpuPixel worker: its index in kiln::list_devices() or a
  // case-insensitive substring of its name; empty picks the best one (a discrete GPU before an
  // integrated one before a CPU implementation). KILN_GPU_COMPUTE_DEVICE and KILN_GPU_PIXEL_DEVICE,
  // when set, override it.
  std::string device;
  // Time every layer of every run (and, on a GPU backend, its device work and transfers), for
  // Worker::profile(). Off, it costs nothing measurable.
  bool profile = false;
  // The most host memory the worker's runs may hold at once, in bytes: memory plans, the
  // values of a run, kernels' scratch. A layer or plan that would go past it fails with a
  // kiln::Error naming the layer and the bytes asked, raised before anything is allocated (the
  // run's outputs fail at readback; a plan fails schedule()). 0: three quarters of the
  // machine's physical memory (or of the process's control-group limit when lower). GPU memory
  // and the model's weights (see LoadOptions::memory_limit) are not counted.
  uint64_t memory_limit = 0;
  // The bookkeeping bytes of the memory plans a worker keeps, one per input-shape signature
  // (the plans used longest ago go first; at most 64 in any case). Every plan lays its values
  // out in one arena, which grows to the largest plan kept; only the plans' offsets are per
  // signature. A schedule whose shapes have no plan records their sizes (allocating each value
  // on its own) and plans the next schedule with those shapes.
  uint64_t plan_cache_bytes = uint64_t{4} << 20;
  // Each run's time limit from schedule() (0: none). A run past it stops at its next layer
  // (or Loop/Scan iteration, or chunk of a long kernel) and its pending outputs fail at
  // readback with a kiln::Error "deadline exceeded". Worker::set_deadline changes it.
  std::chrono::nanoseconds deadline{0};
};

// A worker's host memory (Worker::memory_stats).
struct MemoryStats {
  uint64_t planned_bytes = 0;     // the arena bytes the latest run's memory plan lays out
  uint64_t arena_bytes = 0;       // the arena memory the worker holds (for every plan at once)
  uint64_t cached_plans = 0;      // memory plans kept, one per input-shape signature
  uint64_t plan_cache_bytes = 0;  // their bookkeeping
  uint64_t in_use_bytes = 0;      // host memory the worker holds now, counted against the limit
  uint64_t peak_bytes = 0;        // the most in_use_bytes has been
  uint64_t memory_limit = 0;      // WorkerOptions::memory_limit, or its default
};

// What a GPU worker asked of its device since the worker was made (Worker::device_counters),
// counted as the work is recorded; all zero on the CPU backend. Subtract two readings to get one
// run's figures.
struct DeviceCounters {
  uint64_t dispatches = 0;   // compute dispatches (gpu-compute) or draws (gpu-pixel)
  uint64_t barriers = 0;     // pipeline barriers (gpu-compute; OpenGL ES orders draws itself)
  uint64_t submissions = 0;  // queue submissions (gpu-compute) or flushes (gpu-pixel)
  uint64_t bytes_uploaded = 0;
  uint64_t bytes_downloaded = 0;
  // CPU time spent recording the nodes' device work (uploads of host inputs included).
  std::chrono::nanoseconds recording_time{0};
  // Device nodes whose work their kernels recorded, and those replayed instead because the run's
  // inputs matched the node's previous recording (same shapes and dtypes, and the same values in
  // the host inputs its kernel reads): a replay repeats the dispatches (draws) with this run's
  // buffers and skips the kernel's planning.
  uint64_t nodes_recorded = 0;
  uint64_t nodes_replayed = 0;
};

// What a run may do with an input's memory.
enum class InputUse {
  Read,  // the run only reads it: nothing the caller passed in is modified
  // The caller hands the memory over: the layer that reads the input, when it is the input's
  // only reader, may write its result into it and return it as an output instead of copying
  // (GroupQueryAttention appends the new keys and values to a past cache as long as the present
  // one: the present output is then the same memory). The caller must not read or write the
  // tensor after schedule(); it reads the outputs instead.
  Donate,
};

struct NamedTensor {
  std::string_view name;
  Tensor tensor;
  InputUse use = InputUse::Read;
};

// One step of schedule_iterable: the layer that just ran.
struct LayerStep {
  size_t index;
  std::string_view op_type;
  std::string_view node_name;
};

// Where one node of the optimized graph runs on a worker: on the worker's backend, or on the
// CPU with the reason (the GPU backend lacks the op or dtype, the value decides shapes, ...).
struct NodePlacement {
  std::string node_name;
  std::string op_type;
  Backend backend = Backend::Cpu;
  std::string fallback_reason;  // empty when the node runs on the worker's backend
  // For nodes on a GPU backend. Whether everything their placement depends on was known at load
  // time (each input's shape and dtype, the values that decide shapes): such a node goes back to
  // the CPU at run time only for a device limit (a tensor larger than the GPU can bind) or for
  // input values its kernel reads on the host (sequence lengths, indices).
  bool decided_at_load = true;
  // The runs so far in which the node went back to the CPU at run time, and why the latest did
  // ("device limit: ...", "shape outside the kernel: ...", "input values: ...", "input kind:
  // ...").
  uint64_t run_time_fallbacks = 0;
  std::string run_time_reason;
};

class WorkerImpl;
class LayerSteps;

class KILN_API Worker {
 public:
  Worker(const Model& model, Backend backend = Backend::Cpu, const WorkerOptions& options = {});
  ~Worker();
  Worker(Worker&&) noexcept;
  Worker& operator=(Worker&&) noexcept;

  // Queues every layer of one inference and returns without waiting for any of them.
  // Throws kiln::Error at once for an unknown input name, a missing input, or an input whose
  // dtype or shape the model does not accept. The worker keeps its own references to the
  // inputs: the caller may drop or reuse its handles right away (but must not write into a
  // tensor's data while a run that reads it is pending).
  void schedule(std::initializer_list<NamedTensor> inputs);
  void schedule(std::span<const NamedTensor> inputs);
  void schedule(const std::map<std::string, Tensor>& inputs);
  void schedule(const Tensor& input);  // for single-input models

  // Runs the layers one at a time on the calling thread, one per step of the returned range:
  //   for (kiln::LayerStep step : worker.schedule_iterable({{"x", x}})) { ...next frame... }
  LayerSteps schedule_iterable(std::initializer_list<NamedTensor> inputs);
  LayerSteps schedule_iterable(std::span<const NamedTensor> inputs);

  // The output of the latest run, owned by the worker and valid until the next schedule.
  // It may still be pending: use the readback calls to wait for it.
  const Tensor& peek_output(std::string_view name) const;
  const Tensor& peek_output() const;  // the first output
  // A handle the caller owns, holding a copy made once the output is ready (no waiting here).
  Tensor copy_output(std::string_view name) const;
  // Hands the output over to the caller without copying; the worker forgets it.
  Tensor take_output(std::string_view name);

  const Model& model() const;
  Backend backend() const;
  std::vector<std::string> output_names() const;
  // Per node of the optimized graph, in execution order.
  std::vector<NodePlacement> placements() const;
  // The device in words ("cpu", or the GPU's name and API version).
  std::string device_description() const;
  // Stops every run scheduled so far: each stops at its next layer (or loop iteration, or chunk
  // of a long kernel) and its pending outputs fail at readback with a kiln::Error "run
  // cancelled". Safe to call from any thread, also while another thread schedules; runs
  // scheduled afterwards are not affected, so the worker is ready for the next one at once.
  void cancel();
  // The time limit of runs scheduled from now on (0: none); see WorkerOptions::deadline.
  void set_deadline(std::chrono::nanoseconds deadline);
  // The worker's host memory now. Safe to call while a run is in flight.
  MemoryStats memory_stats() const;
  // What the worker's GPU backend asked of its device so far. Safe to call while a run is in
  // flight.
  DeviceCounters device_counters() const;

  // Where the latest run's time went (WorkerOptions::profile must be on). Waits for the run to
  // finish and for its device timings.
  Profile profile() const;

 private:
  std::unique_ptr<WorkerImpl> impl_;
};

// The range returned by Worker::schedule_iterable. Each increment runs one layer.
class KILN_API LayerSteps {
 public:
  class KILN_API Iterator {
   public:
    LayerStep operator*() const;
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

   private:
    friend class LayerSteps;
    Iterator(LayerSteps* owner, size_t index) : owner_(owner), index_(index) {}
    LayerSteps* owner_;
    size_t index_;
  };
  Iterator begin();
  Iterator end();
  size_t size() const;

  // Internal.
  struct State;
  explicit LayerSteps(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~LayerSteps();

 private:
  std::shared_ptr<State> state_;
};

}  // namespace kiln
