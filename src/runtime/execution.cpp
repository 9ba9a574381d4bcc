#include "runtime/execution.h"

#include "core/element_count.h"
#include "core/log.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace kiln {

class Execution::NodeJob : public Runnable, public OutputAllocator {
 public:
  NodeJob(Execution& owner, size_t index) : owner_(owner), index_(index) {
    const CompiledNode& cn = owner.graph_->nodes[index];
    inputs.resize(cn.inputs.size());
    outputs.resize(cn.outputs.size());
    if (cn.device_kernel) {
      mirrors.resize(cn.inputs.size());
      for (int slot : cn.inputs) constant.push_back(slot >= 0 && owner.is_constant_[slot]);
    }
  }
  void run() override {
    // A layer whose inputs this one completed runs next on this thread, where they are still in
    // its cache; any others become ready for the other workers.
    for (NodeJob* job = this; job != nullptr;) {
      owner_.execute(job->index_);
      job = owner_.node_finished(job->index_, /*keep_one=*/true);
    }
  }
  Tensor allocate(size_t output, DataType dtype, const Shape& shape) override {
    return owner_.allocate(index_, output, dtype, shape);
  }
  Tensor view(size_t output, const Tensor& source, const Shape& shape) override {
    return owner_.view(index_, output, source, shape);
  }

  size_t index() const { return index_; }

  std::atomic<int> pending{0};
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<DeviceMirror*> mirrors;
  std::vector<char> constant;

 private:
  Execution& owner_;
  size_t index_;
};

namespace {

std::shared_ptr<TensorImpl> new_pending_impl() {
  auto impl = std::make_shared<TensorImpl>(DataType::Undefined, Shape{}, nullptr);
  impl->mark_pending();
  return impl;
}

std::string describe_node(const void* node) {
  return static_cast<const CompiledNode*>(node)->node->describe();
}

}  // namespace

Execution::Execution(std::shared_ptr<const CompiledGraph> graph, ThreadPool& pool, bool profile)
    : graph_(std::move(graph)), pool_(pool) {
  const auto& g = *graph_;
  if (profile) profiler_ = std::make_unique<RunProfiler>(g.nodes.size());
  values_.resize(g.slot_count());
  is_graph_output_.assign(g.slot_count(), false);
  taken_.assign(g.slot_count(), false);
  is_constant_.assign(g.slot_count(), false);
  mirrors_.resize(g.slot_count());
  readers_left_ = std::make_unique<std::atomic<int>[]>(g.slot_count());
  for (const auto& [slot, tensor] : g.constants) is_constant_[static_cast<size_t>(slot)] = true;
  for (int s : g.output_slots) is_graph_output_[static_cast<size_t>(s)] = true;
  single_use_.assign(g.slot_count(), 0);
  donated_.assign(g.slot_count(), 0);
  for (size_t s = 0; s < g.slot_count(); ++s) {
    if (g.readers[s].size() != 1 || is_graph_output_[s]) continue;
    const auto& ins = g.nodes[static_cast<size_t>(g.readers[s][0])].inputs;
    single_use_[s] = std::count(ins.begin(), ins.end(), static_cast<int>(s)) == 1;
  }
  for (const auto& [slot, tensor] : g.constants) values_[static_cast<size_t>(slot)] = tensor;
  for (size_t s = 0; s < g.slot_count(); ++s) {
    if (g.producer[s] >= 0) values_[s] = Tensor(new_pending_impl());
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) jobs_.push_back(std::make_unique<NodeJob>(*this, i));
  recorded_bytes_.assign(g.slot_count(), 0);
  alias_of_.assign(g.slot_count(), -1);
}

Execution::~Execution() { wait_idle(); }

Tensor download_to_host(const Tensor& t) {
  auto host = std::make_shared<TensorImpl>(t.dtype(), t.shape(), nullptr);
  t.impl()->device->wait_download(*host);
  return Tensor(std::move(host));
}

void Execution::wait_idle() const {
  // Through the lock even when already idle: the job that set idle may still be notifying
  // under it, and a caller may destroy this execution as soon as this returns.
  std::unique_lock lock(idle_mutex_);
  idle_cv_.wait(lock, [&] { return idle(); });
}

void Execution::set_memory(std::shared_ptr<MemoryBudget> budget, size_t plan_cache_bytes) {
  budget_ = std::move(budget);
  plan_cache_limit_ = plan_cache_bytes;
}

void Execution::set_run_stop(const std::atomic<uint64_t>* cancel_count, int64_t deadline_ns) {
  stop_.start(cancel_count, deadline_ns);
  own_stop_ = true;
}

Execution::MemoryCounters Execution::memory_counters() const {
  MemoryCounters c;
  c.planned_bytes = planned_bytes_.load(std::memory_order_relaxed);
  c.arena_bytes = arena_bytes_.load(std::memory_order_relaxed);
  c.cached_plans = cached_plans_.load(std::memory_order_relaxed);
  c.plan_cache_bytes = plan_cache_bytes_.load(std::memory_order_relaxed);
  return c;
}

void Execution::update_counters() {
  size_t bytes = 0;
  for (const auto& p : plans_) bytes += p->bookkeeping_bytes;
  arena_bytes_.store(arena_ ? arena_->bytes() : 0, std::memory_order_relaxed);
  cached_plans_.store(plans_.size(), std::memory_order_relaxed);
  plan_cache_bytes_.store(bytes, std::memory_order_relaxed);
}

namespace {

std::string describe_arena(const void*) { return "the memory plan of these input shapes"; }

}  // namespace

// Points the plan's values into the arena, growing the arena first when the plan needs more
// than it holds (charged to the budget here, on the scheduling thread, before the run starts).
void Execution::use_plan(SignaturePlan& p) {
  if (p.plan.arena_bytes > 0 && (!arena_ || arena_->bytes() < p.plan.arena_bytes)) {
    std::shared_ptr<Storage> bigger;
    {
      MemoryScope scope(budget_ ? budget_.get() : MemoryScope::budget(), {this, describe_arena});
      // The old arena goes first, so that growing never needs both at once: the values of the
      // previous run (in it, or allocated on their own by a recording run) go too.
      const auto& g = *graph_;
      for (size_t s = 0; s < g.slot_count(); ++s) {
        if (g.producer[s] < 0 || is_graph_output_[s] || !values_[s].defined()) continue;
        const auto& impl = values_[s].impl();
        if (impl.use_count() == 1) impl->storage.reset();
      }
      arena_.reset();
      for (auto& other : plans_) {
        other->slot_storage.clear();
        other->arena_generation = 0;
      }
      bigger = Storage::allocate(DataType::UInt8, static_cast<int64_t>(p.plan.arena_bytes));
    }
    arena_ = std::move(bigger);
    ++arena_generation_;
    update_counters();
  }
  if (p.arena_generation != arena_generation_) {
    p.slot_storage.assign(graph_->slot_count(), nullptr);
    for (size_t s = 0; s < graph_->slot_count(); ++s) {
      if (p.plan.offset[s] == MemoryPlan::kNotPlanned) continue;
      p.slot_storage[s] = Storage::borrow(static_cast<char*>(arena_->data()) + p.plan.offset[s],
                                          p.plan.bytes[s], arena_);
    }
    p.arena_generation = arena_generation_;
  }
}

void Execution::select_plan(std::span<const Tensor> inputs) {
  signature_.clear();
  plan_ = nullptr;
  // A pending input (another worker's output) has no dtype or shape yet: its producer may be
  // writing them now. Such a run has no signature; it runs unplanned and leaves no plan.
  records_plan_ =
      std::none_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.is_pending(); });
  if (records_plan_) {
    for (const Tensor& t : inputs) {
      signature_.push_back(static_cast<int64_t>(t.dtype()));
      signature_.push_back(static_cast<int64_t>(t.rank()));
      for (int64_t d : t.shape()) signature_.push_back(d);
    }
    for (auto& p : plans_) {
      if (p->signature != signature_) continue;
      use_plan(*p);  // may throw (memory budget): nothing of the run has started yet
      plan_ = p.get();
      plan_->last_used = ++use_clock_;
      planned_bytes_.store(plan_->plan.arena_bytes, std::memory_order_relaxed);
      return;
    }
  }
  // Record this run's sizes to plan the next one.
  if (records_plan_ && !plans_.empty()) {
    log_message(LogLevel::Info,
                "new input shapes: this run records its sizes and the next "
                "one gets a memory plan (" +
                    std::to_string(plans_.size()) + " other shape signatures cached)");
  }
  planned_bytes_.store(0, std::memory_order_relaxed);
  std::fill(recorded_bytes_.begin(), recorded_bytes_.end(), 0);
  std::fill(alias_of_.begin(), alias_of_.end(), -1);
}

// Keeps the new plan and drops the plans used longest ago while the cache is over its limit
// (the newest always stays). The arena shrinks when it is over twice what the kept plans need.
void Execution::add_plan(std::unique_ptr<SignaturePlan> p) {
  p->last_used = ++use_clock_;
  const size_t slots = graph_->slot_count();
  p->bookkeeping_bytes = sizeof(SignaturePlan) + p->signature.size() * sizeof(int64_t) +
                         slots * (2 * sizeof(size_t) + sizeof(std::shared_ptr<Storage>));
  for (size_t s = 0; s < slots; ++s) {
    if (p->plan.offset[s] != MemoryPlan::kNotPlanned) p->bookkeeping_bytes += 96;  // a slice
  }
  plans_.push_back(std::move(p));
  size_t total = 0;
  for (const auto& q : plans_) total += q->bookkeeping_bytes;
  while ((total > plan_cache_limit_ || plans_.size() > kMaxCachedPlans) && plans_.size() > 1) {
    auto oldest = std::min_element(plans_.begin(), plans_.end(), [](const auto& a, const auto& b) {
      return a->last_used < b->last_used;
    });
    total -= (*oldest)->bookkeeping_bytes;
    plans_.erase(oldest);
  }
  size_t needed = 0;
  for (const auto& q : plans_) needed = std::max(needed, q->plan.arena_bytes);
  if (arena_ && arena_->bytes() > 2 * needed) {
    arena_.reset();
    for (auto& q : plans_) {
      q->slot_storage.clear();
      q->arena_generation = 0;
    }
  }
  update_counters();
}

void Execution::bind(std::span<const Tensor> inputs, std::span<const char> donated) {
  const auto& g = *graph_;
  if (profiler_) profiler_->begin_run();
  select_plan(inputs);
  std::fill(taken_.begin(), taken_.end(), false);
  for (size_t s = 0; s < g.slot_count(); ++s) {
    if (!is_constant_[s]) mirrors_[s].reset();
    readers_left_[s].store(static_cast<int>(g.readers[s].size()), std::memory_order_relaxed);
  }
  for (size_t i = 0; i < g.input_slots.size(); ++i) {
    const auto slot = static_cast<size_t>(g.input_slots[i]);
    values_[slot] = inputs[i];
    donated_[slot] = i < donated.size() && donated[i] && single_use_[slot] &&
                     inputs[i].kind() == ValueKind::Tensor;
  }
  for (size_t s = 0; s < g.slot_count(); ++s) {
    if (g.producer[s] < 0) continue;
    // A tensor the user still holds from an earlier run keeps its data; this run gets a new one.
    if (!values_[s].defined() || values_[s].impl().use_count() > 1)
      values_[s] = Tensor(new_pending_impl());
    values_[s].impl()->mark_pending();
  }
  for (size_t i = 0; i < jobs_.size(); ++i)
    jobs_[i]->pending.store(g.nodes[i].dependency_count, std::memory_order_relaxed);
  nodes_left_.store(static_cast<int>(jobs_.size()), std::memory_order_relaxed);
  kernels_left_.store(static_cast<int>(jobs_.size()), std::memory_order_relaxed);
  idle_.store(jobs_.empty(), std::memory_order_release);
}

void Execution::start(std::span<const Tensor> inputs, std::span<const char> donated) {
  inline_mode_ = false;
  bind(inputs, donated);
  const auto& g = *graph_;
  // An input that is itself still pending (another worker's output) holds back its readers.
  std::vector<int> held;
  for (size_t i = 0; i < g.input_slots.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.is_pending()) continue;
    for (int reader : g.readers[static_cast<size_t>(g.input_slots[i])]) {
      jobs_[static_cast<size_t>(reader)]->pending.fetch_add(1, std::memory_order_relaxed);
      held.push_back(reader);
      t.impl()->on_complete([this, reader] {
        if (jobs_[static_cast<size_t>(reader)]->pending.fetch_sub(1) == 1) {
          pool_.submit(jobs_[static_cast<size_t>(reader)].get());
        }
      });
    }
  }
  for (int root : g.roots) {
    if (std::find(held.begin(), held.end(), root) == held.end())
      pool_.submit(jobs_[static_cast<size_t>(root)].get());
  }
}

void Execution::prepare(std::span<const Tensor> inputs, std::span<const char> donated) {
  for (const Tensor& t : inputs) {
    if (t.is_pending()) t.impl()->wait();
  }
  inline_mode_ = true;
  bind(inputs, donated);
}

void Execution::run_node_inline(size_t node) {
  execute(node);
  // One layer per step: the device starts on it now rather than at the end of the run.
  if (graph_->device) graph_->device->flush();
  node_finished(node, /*keep_one=*/false);
}

Tensor Execution::allocate(size_t node, size_t output, DataType dtype, const Shape& shape) {
  // A kernel computes an output's shape from its inputs' values (ConstantOfShape, Expand, Tile,
  // Range...): whatever the values were, the shape must be one a tensor can have.
  const std::optional<int64_t> elements = element_count_within(shape, kMaxTensorElements);
  if (!elements)
    throw Error(graph_->nodes[node].node->describe() + ": output shape " + shape.to_string() +
                " has a negative dimension or more elements than a tensor can hold");
  const int64_t count = *elements;
  const int slot = graph_->nodes[node].outputs[output];
  if (slot < 0) return make_host_tensor(dtype, shape);  // an output nobody reads
  const auto s = static_cast<size_t>(slot);
  TensorImpl& impl = *values_[s].impl();
  const size_t bytes = static_cast<size_t>(count) * dtype_size(dtype);
  impl.dtype = dtype;
  impl.shape = shape;
  impl.offset = 0;
  impl.device = nullptr;
  impl.kind = ValueKind::Tensor;
  impl.elements.clear();
  const bool plannable = dtype != DataType::String && !is_graph_output_[s];
  if (!plan_ && plannable) recorded_bytes_[s] = std::max(recorded_bytes_[s], bytes);
  if (plannable && plan_ && plan_->plan.offset[s] != MemoryPlan::kNotPlanned &&
      plan_->plan.bytes[s] >= bytes) {
    impl.storage = plan_->slot_storage[s];
  } else if (dtype == DataType::String || !impl.storage || impl.storage.use_count() > 1 ||
             !impl.storage->owned() || impl.storage->bytes() < bytes) {
    // A slice of the arena is only this slot's under the plan that placed it: never reused
    // outside it.
    impl.storage = !plan_ && dtype != DataType::String ? recycled_.take(bytes) : nullptr;
    if (!impl.storage) impl.storage = Storage::allocate(dtype, count);
  }
  return values_[s];
}

Tensor Execution::view(size_t node, size_t output, const Tensor& source, const Shape& shape) {
  const CompiledNode& cn = graph_->nodes[node];
  const int slot = cn.outputs[output];
  if (slot < 0) return source.reshaped(shape);
  const auto s = static_cast<size_t>(slot);
  if (source.kind() != ValueKind::Tensor) {  // sequences and optionals are immutable: share
    values_[s].impl()->assign_contents(*source.impl());
    return values_[s];
  }
  if (is_graph_output_[s]) {  // graph outputs own their memory
    Tensor t = allocate(node, output, source.dtype(), shape);
    TensorImpl& dst = *t.impl();
    if (source.dtype() == DataType::String) {
      const auto* from = source.data<std::string>();
      std::copy(from, from + source.element_count(), static_cast<std::string*>(dst.data()));
    } else if (source.byte_size() > 0) {
      std::memcpy(dst.data(), source.raw_data(), source.byte_size());
    }
    return t;
  }
  TensorImpl& impl = *values_[s].impl();
  impl.assign_contents(*source.impl());
  impl.shape = shape;
  record_alias(cn, slot, source.impl()->storage.get());
  return values_[s];
}

void Execution::record_alias(const CompiledNode& cn, int slot, const Storage* storage) {
  if (plan_) return;  // only the recording run plans memory
  for (int in : cn.inputs) {
    if (in >= 0 && values_[static_cast<size_t>(in)].impl() &&
        values_[static_cast<size_t>(in)].impl()->storage.get() == storage) {
      alias_of_[static_cast<size_t>(slot)] = in;
    }
  }
}

void Execution::execute(size_t index) {
  if (!profiler_) return execute_node(index);
  NodeTiming& timing = profiler_->node(index);
  timing.thread = ThreadPool::current_worker_index();
  timing.start_ns = steady_now_ns();
  set_transfer_notes(&timing.transfers);
  execute_node(index);
  set_transfer_notes(nullptr);
  timing.end_ns = steady_now_ns();
  timing.ran = true;
}

void Execution::execute_node(size_t index) {
  const CompiledNode& cn = graph_->nodes[index];
  NodeJob& job = *jobs_[index];
  std::exception_ptr failure;
  for (size_t k = 0; k < cn.inputs.size(); ++k) {
    job.inputs[k] = cn.inputs[k] >= 0 ? values_[static_cast<size_t>(cn.inputs[k])] : Tensor();
    if (job.inputs[k].defined() && job.inputs[k].impl()->state() == TensorState::Failed) {
      failure = job.inputs[k].impl()->error();
    }
  }
  for (size_t k = 0; k < cn.outputs.size(); ++k) job.outputs[k] = Tensor();
  // A subgraph's execution follows the run of the layer that runs it.
  const RunStop* stop = own_stop_ ? &stop_ : RunStop::current();
  RunStop::Scope stop_scope(stop);
  MemoryScope memory_scope(budget_ ? budget_.get() : MemoryScope::budget(), {&cn, describe_node});
  if (!failure) {
    try {
      if (stop) stop->check();
      if (!cn.device_kernel || !record_on_device(cn, job)) run_on_cpu(cn, job);
      for (size_t k = 0; k < cn.outputs.size(); ++k) {
        const int slot = cn.outputs[k];
        if (slot < 0) continue;
        Tensor& produced = job.outputs[k];
        TensorImpl& target = *values_[static_cast<size_t>(slot)].impl();
        if (!produced.defined())
          throw Error(cn.node->describe() + ": output " + std::to_string(k) + " was not produced");
        if (produced.impl().get() == &target) continue;
        // Device results are never written again once recorded: sharing them is safe.
        if (produced.impl()->device) {
          target.assign_contents(*produced.impl());
          continue;
        }
        // The kernel handed over an existing tensor (a view, a constant, a sequence, a
        // donated input it overwrote).
        if (is_graph_output_[static_cast<size_t>(slot)] &&
            !is_overwritable_input(cn, produced.impl()->storage.get())) {
          // Graph outputs own their memory: the user may keep them past the next run (memory
          // the caller donated is theirs again, never the worker's).
          target.assign_contents(*produced.clone().impl());
        } else {
          target.assign_contents(*produced.impl());
          if (target.storage) record_alias(cn, slot, target.storage.get());
        }
      }
    } catch (const Error&) {
      failure = std::current_exception();
    } catch (const std::exception& e) {
      failure = std::make_exception_ptr(Error(cn.node->describe() + ": " + e.what()));
    }
  }
  // Before any output becomes visible, so that a caller who sees the last output knows the
  // run is only finishing its bookkeeping.
  kernels_left_.fetch_sub(1, std::memory_order_acq_rel);
  for (size_t k = 0; k < cn.outputs.size(); ++k) {
    const int slot = cn.outputs[k];
    if (slot < 0) continue;
    TensorImpl& target = *values_[static_cast<size_t>(slot)].impl();
    if (failure) {
      target.mark_failed(failure);
    } else {
      target.mark_ready();
    }
  }
  for (auto& t : job.inputs) t = Tensor();
  for (auto& t : job.outputs) t = Tensor();
  const bool recording = records_plan_ && !plan_;
  if (graph_->device || recording) release_dead_inputs(cn, recording);
}

void Execution::release_dead_inputs(const CompiledNode& cn, bool recording) {
  for (int slot : cn.inputs) {
    if (slot < 0) continue;
    const auto s = static_cast<size_t>(slot);
    if (readers_left_[s].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (is_constant_[s]) continue;
    mirrors_[s].reset();
    // Intermediate values: nobody outside the run can see them.
    if (graph_->producer[s] >= 0 && !is_graph_output_[s]) {
      TensorImpl& impl = *values_[s].impl();
      if (impl.device) {
        impl.device.reset();
        impl.storage.reset();
      } else if (recording) {
        // A recording run allocates each value on its own: freed once dead, they peak at what
        // the live values need, as the planned runs' arena does, not at the sum of all of them
        // (ResNet-50: 45 MB, where its arena holds 7). Large blocks wait for a later value of
        // their size (runtime/storage_recycler.h).
        if (impl.dtype == DataType::String) {
          impl.storage.reset();
        } else {
          recycled_.give(std::move(impl.storage));
        }
      }
    }
  }
}

bool Execution::record_on_device(const CompiledNode& cn, NodeJob& job) {
  for (size_t k = 0; k < cn.inputs.size(); ++k) {
    const int slot = cn.inputs[k];
    const bool host_value = slot >= 0 && job.inputs[k].defined() && !job.inputs[k].impl()->device;
    job.mirrors[k] = host_value ? &mirrors_[static_cast<size_t>(slot)] : nullptr;
  }
  DeviceOpRun run{job.inputs, job.outputs, job.mirrors, job.constant};
  if (!profiler_) return cn.device_kernel->record(run);
  const size_t index = job.index();
  const bool recorded =
      graph_->device->record_timed(*cn.device_kernel, run, static_cast<uint32_t>(index));
  profiler_->node(index).on_device = recorded;
  return recorded;
}

void Execution::run_on_cpu(const CompiledNode& cn, NodeJob& job) {
  // Values a device node produced come to the host first; this job waits for the device, the
  // caller of schedule never does. A node that reads only shapes takes the device tensors as
  // they are.
  for (size_t k = 0; k < job.inputs.size() && !cn.reads_only_shapes; ++k) {
    Tensor& in = job.inputs[k];
    if (!in.defined() || !in.impl()->device) continue;
    TimedTransfer timed(false, in.byte_size(), static_cast<int>(k));
    in = download_to_host(in);
  }
  for (auto& out : job.outputs) out = Tensor();
  OpContext ctx(*cn.node, cn.opset, job.inputs, job.outputs, job);
  ctx.allow_overwriting(overwritable_inputs(cn));
  KernelScope scope;
  cn.kernel(ctx);
}

uint64_t Execution::overwritable_inputs(const CompiledNode& cn) const {
  uint64_t mask = 0;
  for (size_t k = 0; k < cn.inputs.size() && k < 64; ++k) {
    if (cn.inputs[k] >= 0 && donated_[static_cast<size_t>(cn.inputs[k])]) mask |= uint64_t{1} << k;
  }
  return mask;
}

bool Execution::is_overwritable_input(const CompiledNode& cn, const Storage* storage) const {
  if (storage == nullptr) return false;
  for (int in : cn.inputs) {
    if (in >= 0 && donated_[static_cast<size_t>(in)] &&
        values_[static_cast<size_t>(in)].impl()->storage.get() == storage)
      return true;
  }
  return false;
}

Execution::NodeJob* Execution::node_finished(size_t index, bool keep_one) {
  NodeJob* kept = nullptr;
  for (int c : graph_->nodes[index].consumers) {
    NodeJob& job = *jobs_[static_cast<size_t>(c)];
    if (job.pending.fetch_sub(1, std::memory_order_acq_rel) != 1 || inline_mode_) continue;
    if (keep_one && kept == nullptr) {
      kept = &job;
    } else {
      pool_.submit(&job);
    }
  }
  // A kept job is not finished, so this cannot be the run's last node then.
  if (nodes_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) finish_run();
  return kept;
}

void Execution::finish_run() {
  if (graph_->device) graph_->device->flush();
  if (!plan_ && records_plan_) {
    auto p = std::make_unique<SignaturePlan>();
    p->signature = signature_;
    p->plan = plan_memory(*graph_, recorded_bytes_, alias_of_);
    add_plan(std::move(p));
  }
  recycled_.clear();
  // Notified under the lock, the last touch of this execution by this job: a waiter cannot
  // return from wait_idle (and destroy the execution) before the lock is released.
  std::lock_guard lock(idle_mutex_);
  idle_.store(true, std::memory_order_release);
  idle_cv_.notify_all();
}

}  // namespace kiln
