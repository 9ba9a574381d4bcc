// One in-flight (or finished) run of a compiled graph on the CPU job system: a job per node,
// each started when the nodes producing its inputs have finished, and per-run value tensors
// that the user can hold while they are still pending.
#pragma once

#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "core/memory_budget.h"
#include "core/run_stop.h"
#include "core/tensor_impl.h"
#include "core/thread_pool.h"
#include "runtime/compiled_graph.h"
#include "runtime/memory_plan.h"
#include "runtime/run_profiler.h"
#include "runtime/storage_recycler.h"

namespace kiln {

class Execution {
 public:
  // With `profile`, every run notes each layer's timing (runtime/run_profiler.h).
  Execution(std::shared_ptr<const CompiledGraph> graph, ThreadPool& pool, bool profile = false);
  ~Execution();

  // True when no job of the latest run is pending or running.
  bool idle() const { return idle_.load(std::memory_order_acquire); }
  // True once every kernel of the latest run has returned: only bookkeeping remains, so
  // waiting for idle() takes microseconds, not a layer's run time.
  bool kernels_done() const { return kernels_left_.load(std::memory_order_acquire) == 0; }
  // Blocks until idle (used on destruction and by tests).
  void wait_idle() const;

  // The budget its allocations count against (null: the one of the thread that runs it, for a
  // subgraph inside a layer) and the bytes its cached memory plans may keep.
  void set_memory(std::shared_ptr<MemoryBudget> budget, size_t plan_cache_bytes);
  // The next run stops ("run cancelled") once *cancel_count moves on from its value at the
  // start, or past deadline_ns on the steady clock (0: none). Without it, a run follows the
  // run of the thread that executes it (a subgraph follows its layer's run).
  void set_run_stop(const std::atomic<uint64_t>* cancel_count, int64_t deadline_ns);

  struct MemoryCounters {
    uint64_t planned_bytes = 0;  // arena bytes the latest run's plan lays out (0: recording)
    uint64_t arena_bytes = 0;
    uint64_t cached_plans = 0;
    uint64_t plan_cache_bytes = 0;
  };
  // Safe to call while a run is in flight (the figures may be a run behind).
  MemoryCounters memory_counters() const;

  // Binds the inputs (in graph.input_slots order) and queues every node. Returns at once.
  // `donated[i]`: the caller handed input i's memory over (InputUse::Donate); its only reader
  // may overwrite it.
  void start(std::span<const Tensor> inputs, std::span<const char> donated = {});
  // Binds the inputs like start() but queues nothing: run_node_inline() runs the nodes.
  void prepare(std::span<const Tensor> inputs, std::span<const char> donated = {});
  void run_node_inline(size_t node);

  Tensor& value(int slot) { return values_[static_cast<size_t>(slot)]; }
  // take_output: the caller now owns the slot's tensor. It stays valid (the running job may
  // still write it); the next run gives the slot a new one because the handle is shared.
  void detach(int slot) { taken_[static_cast<size_t>(slot)] = true; }
  bool is_taken(int slot) const { return taken_[static_cast<size_t>(slot)]; }
  const CompiledGraph& graph() const { return *graph_; }
  // The latest run's timings; null unless constructed with `profile`.
  const RunProfiler* profiler() const { return profiler_.get(); }

 private:
  class NodeJob;
  // The memory plan of one input-shape signature. Plans keep offsets only: every plan lays its
  // values out in the one arena of the execution, which grows to the largest plan in use.
  struct SignaturePlan {
    std::vector<int64_t> signature;
    MemoryPlan plan;
    uint64_t last_used = 0;
    size_t bookkeeping_bytes = 0;
    uint64_t arena_generation = 0;  // of the arena slot_storage points into (0: none)
    std::vector<std::shared_ptr<Storage>> slot_storage;  // borrowed slices of the arena
  };

  void bind(std::span<const Tensor> inputs, std::span<const char> donated);
  // The node's inputs that it may overwrite this run (bit k: input k), and whether `storage`
  // is one of them.
  uint64_t overwritable_inputs(const CompiledNode& node) const;
  bool is_overwritable_input(const CompiledNode& node, const Storage* storage) const;
  void execute(size_t node);  // execute_node, timed when profiling
  void execute_node(size_t node);
  // Marks `node` done and hands its consumers that became ready to the pool; with keep_one the
  // first of them is returned instead, for the calling job to run next.
  NodeJob* node_finished(size_t node, bool keep_one);
  void finish_run();
  Tensor allocate(size_t node, size_t output, DataType dtype, const Shape& shape);
  Tensor view(size_t node, size_t output, const Tensor& source, const Shape& shape);
  void record_alias(const CompiledNode& node, int slot, const Storage* storage);
  bool record_on_device(const CompiledNode& node, NodeJob& job);
  void run_on_cpu(const CompiledNode& node, NodeJob& job);
  // After `node` ran, for each input it was the last reader of in this run: drops the value's
  // device copy, and its host memory in a recording run (an intermediate value only).
  void release_dead_inputs(const CompiledNode& node, bool recording);
  void select_plan(std::span<const Tensor> inputs);
  void use_plan(SignaturePlan& plan);
  void add_plan(std::unique_ptr<SignaturePlan> plan);
  void update_counters();

  std::shared_ptr<const CompiledGraph> graph_;
  ThreadPool& pool_;
  std::unique_ptr<RunProfiler> profiler_;
  std::vector<Tensor> values_;
  std::vector<bool> is_graph_output_;
  std::vector<bool> taken_;
  std::vector<bool> is_constant_;
  // Per slot: read by one node, once, and not a graph output, so a donated input there may be
  // overwritten by its reader; and whether this run's value was donated.
  std::vector<char> single_use_;
  std::vector<char> donated_;
  // Device copies of host values (see DeviceMirror); constants keep theirs between runs.
  std::vector<DeviceMirror> mirrors_;
  // Per slot, readers of this run that have not finished: device memory of intermediate values
  // (and host memory, in a recording run) goes back as soon as the last one has done its work.
  std::unique_ptr<std::atomic<int>[]> readers_left_;
  std::vector<std::unique_ptr<NodeJob>> jobs_;
  std::atomic<int> nodes_left_{0};
  std::atomic<int> kernels_left_{0};
  std::atomic<bool> idle_{true};
  bool inline_mode_ = false;  // schedule_iterable: the caller runs the nodes one by one
  mutable std::mutex idle_mutex_;
  mutable std::condition_variable idle_cv_;

  RunStop stop_;
  bool own_stop_ = false;

  // Memory planning, per input-shape signature: the plans used last are kept, up to
  // plan_cache_limit_ bytes of bookkeeping.
  static constexpr size_t kMaxCachedPlans = 64;  // also with room in plan_cache_limit_
  std::shared_ptr<MemoryBudget> budget_;
  size_t plan_cache_limit_ = size_t{4} << 20;
  std::vector<int64_t> signature_;  // of the current run (capacity kept between runs)
  std::vector<std::unique_ptr<SignaturePlan>> plans_;
  SignaturePlan* plan_ = nullptr;  // null while recording
  bool records_plan_ = true;       // false for a run with a pending input: no signature
  uint64_t use_clock_ = 0;
  std::shared_ptr<Storage> arena_;
  uint64_t arena_generation_ = 0;
  std::atomic<uint64_t> planned_bytes_{0}, arena_bytes_{0}, cached_plans_{0}, plan_cache_bytes_{0};
  std::vector<size_t> recorded_bytes_;
  std::vector<int> alias_of_;
  StorageRecycler recycled_;  // a recording run's dead values, for its later ones
};

}  // namespace kiln
