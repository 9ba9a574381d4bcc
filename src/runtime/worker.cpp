#include "kiln/worker.h"

#include <algorithm>

#include "core/log.h"
#include "core/memory_budget.h"
#include "core/run_stop.h"
#include "core/thread_pool.h"
#include "ir/graph.h"
#include "passes/passes.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution.h"

namespace kiln {

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::Cpu:
      return "cpu";
    case Backend::GpuCompute:
      return "gpu-compute";
    case Backend::GpuPixel:
      return "gpu-pixel";
  }
  return "?";
}

Backend parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "gpu-compute") return Backend::GpuCompute;
  if (name == "gpu-pixel") return Backend::GpuPixel;
  throw Error("unknown backend '" + std::string(name) +
              "' (expected cpu, gpu-compute or gpu-pixel)");
}

class WorkerImpl {
 public:
  WorkerImpl(const Model& model, Backend backend, const WorkerOptions& options)
      : model_(model), backend_(backend), pool_(ThreadPool::shared(options.num_threads)) {
    const ir::Model& ir = *model.ir();
    CompileOptions placement;
    placement.verify_shapes = options.verify_shapes;
    if (backend == Backend::Cpu && !options.device.empty()) {
      log_once(LogLevel::Warn, "cpu worker device",
               "WorkerOptions::device (\"" + options.device +
                   "\") is for GPU workers; a cpu "
                   "worker ignores it");
    }
    if (backend != Backend::Cpu) {
      device_ = make_device_backend(backend, options.device);
      placement.backend = device_.get();
      placement.strict = options.strict;
      placement.cpu_resident = passes::cpu_resident_values(ir);
    }
    const ir::Graph* graph = &ir.graph;
    const std::optional<FusedConvCoverage> fusion =
        device_ ? device_->fused_conv_coverage() : FusedConvCoverage::everything();
    if (fusion) {
      // Fusions on a copy of the graph (the initializers' storage is shared), as far as the
      // backend's kernel covers them: the model stays as loaded. Values the user can see
      // (outputs, LoadOptions::extra_outputs) are never fused away.
      auto fused = std::make_shared<ir::Graph>(ir.graph);
      passes::fuse_conv_activations(*fused, ir.opset_for(""), *fusion);
      if (!device_) {
        passes::fuse_matmul_bias(*fused);
        passes::fuse_gelu(*fused);
        passes::fuse_normalizations(*fused, ir.opset_for(""));
        passes::fuse_softmax(*fused, ir.opset_for(""));
      }
      if (fused->nodes.size() != ir.graph.nodes.size()) {
        fused_graph_ = std::move(fused);
        graph = fused_graph_.get();
      }
    }
    graph_ = std::make_shared<const CompiledGraph>(compile_graph(*graph, ir.opsets, {}, placement));
    profile_ = options.profile;
    budget_ = MemoryBudget::create(options.memory_limit);
    plan_cache_bytes_ = options.plan_cache_bytes;
    deadline_ = options.deadline;
    bound_.resize(ir.inputs.size());
    donated_.resize(ir.inputs.size());
    symbols_.reserve(16);
  }

  ~WorkerImpl() {
    for (auto& e : executions_) e->wait_idle();
    executions_.clear();
    graph_.reset();  // device kernels go before their backend
  }

  // Checks the user's inputs against the model and orders them as the graph's inputs.
  static void check_kind(const ValueInfo& declared, const Tensor& given) {
    const char* expected = nullptr;
    switch (declared.kind) {
      case ValueInfo::Kind::Tensor:
        if (given.kind() != ValueKind::Tensor) expected = "a tensor";
        break;
      case ValueInfo::Kind::Sequence:
        if (given.kind() != ValueKind::Sequence) expected = "a sequence (Tensor::sequence)";
        break;
      case ValueInfo::Kind::Optional:
        if (given.kind() != ValueKind::Optional) expected = "an optional (Tensor::optional)";
        break;
      default:
        break;
    }
    if (expected) {
      throw Error("schedule: input '" + declared.name + "' (" + declared.to_string() +
                  ") must be " + expected + ", got " + given.to_string(0));
    }
  }

  void bind_inputs(std::span<const NamedTensor> inputs) {
    const auto& declared = model_.inputs();
    for (auto& t : bound_) t = Tensor();
    std::fill(donated_.begin(), donated_.end(), char{0});
    for (const NamedTensor& in : inputs) {
      size_t i = 0;
      while (i < declared.size() && declared[i].name != in.name) ++i;
      if (i == declared.size()) {
        std::string names;
        for (const auto& d : declared) names += (names.empty() ? "'" : ", '") + d.name + "'";
        throw Error("schedule: the model has no input named '" + std::string(in.name) +
                    "' (its inputs: " + names + ")");
      }
      if (bound_[i].defined())
        throw Error("schedule: input '" + declared[i].name + "' is given twice");
      if (!(in.tensor.defined()))
        throw Error("schedule: input '" + declared[i].name + "' is an empty tensor handle");
      bound_[i] = in.tensor;
      donated_[i] = in.use == InputUse::Donate;
    }
    symbols_.clear();
    for (size_t i = 0; i < declared.size(); ++i) {
      const ValueInfo& d = declared[i];
      // An optional input left out is an optional without a value.
      if (!bound_[i].defined() && d.kind == ValueInfo::Kind::Optional) {
        bound_[i] = Tensor::empty_optional(d.dtype, d.element_kind == ValueInfo::Kind::Sequence
                                                        ? ValueKind::Sequence
                                                        : ValueKind::Tensor);
      }
      if (!(bound_[i].defined()))
        throw Error("schedule: input '" + d.name + "' (" + d.to_string() + ") is missing");
      const Tensor& t = bound_[i];
      // A pending input (another worker's output) has no dtype or shape yet; the kernels that
      // read it check it when it arrives, and errors surface at readback.
      if (t.is_pending()) continue;
      check_kind(d, t);
      if (d.kind != ValueInfo::Kind::Tensor) continue;
      if (d.dtype != DataType::Undefined && t.dtype() != d.dtype) {
        throw Error("schedule: input '" + d.name + "' must be " + std::string(dtype_name(d.dtype)) +
                    ", got " + std::string(dtype_name(t.dtype())));
      }
      if (!d.has_shape) continue;
      // A one-element [1] tensor stands for a declared scalar, as exporters' test data often
      // has it (a view, the caller's tensor is not touched).
      if (d.shape.empty() && t.shape() == Shape{1}) {
        bound_[i] = t.reshaped(Shape{});
        continue;
      }
      const Shape& s = t.shape();
      bool ok = s.size() == d.shape.size();
      for (size_t k = 0; ok && k < s.size(); ++k) {
        const Dim& dim = d.shape[k];
        if (dim.is_fixed()) {
          ok = s[k] == dim.value;
        } else if (!dim.symbol.empty()) {
          auto it = std::find_if(symbols_.begin(), symbols_.end(),
                                 [&](const auto& p) { return *p.first == dim.symbol; });
          if (it == symbols_.end()) {
            symbols_.emplace_back(&dim.symbol, s[k]);
          } else {
            ok = it->second == s[k];
          }
        }
      }
      if (!ok) {
        throw Error("schedule: input '" + d.name + "' has shape " + s.to_string() +
                    ", the model expects " + d.to_string() +
                    " (dimensions with the same name must be equal across inputs)");
      }
    }
  }

  // An execution whose previous run has finished, or a new one.
  Execution& acquire_execution() {
    // A run whose kernels are all done is only finishing its bookkeeping: waiting for it keeps
    // one execution (and its planned memory) in use instead of starting a second one.
    if (current_ && !current_->idle() && current_->kernels_done()) current_->wait_idle();
    if (current_ && current_->idle()) return *current_;
    for (auto& e : executions_) {
      if (e->idle()) return make_current(e.get());
    }
    auto e = std::make_unique<Execution>(graph_, pool_, profile_);
    e->set_memory(budget_, plan_cache_bytes_);
    {
      std::lock_guard lock(executions_mutex_);
      executions_.push_back(std::move(e));
    }
    return make_current(executions_.back().get());
  }

  Execution& make_current(Execution* e) {
    std::lock_guard lock(executions_mutex_);
    current_ = e;
    return *e;
  }

  void arm_stop(Execution& e) {
    const int64_t deadline =
        deadline_.count() > 0 ? steady_clock_ns() + static_cast<int64_t>(deadline_.count()) : 0;
    e.set_run_stop(&cancel_count_, deadline);
  }

  void schedule(std::span<const NamedTensor> inputs) {
    bind_inputs(inputs);
    Execution& e = acquire_execution();
    arm_stop(e);
    e.start(bound_, donated_);
  }

  Execution& prepare_iterable(std::span<const NamedTensor> inputs) {
    bind_inputs(inputs);
    Execution& e = acquire_execution();
    arm_stop(e);
    e.prepare(bound_, donated_);
    return e;
  }

  int output_slot(std::string_view name) const {
    const auto& outs = model_.outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].name == name) return graph_->output_slots[i];
    }
    std::string names;
    for (const auto& o : outs) names += (names.empty() ? "'" : ", '") + o.name + "'";
    throw Error("the model has no output named '" + std::string(name) + "' (its outputs: " + names +
                ")");
  }

  const Tensor& peek(std::string_view name) {
    if (!current_) throw Error("peek_output('" + std::string(name) + "') before any schedule()");
    const int slot = output_slot(name);
    const Tensor& t = current_->value(slot);
    if (current_->is_taken(slot))
      throw Error("output '" + std::string(name) + "' was taken by take_output()");
    return t;
  }

  Model model_;
  // The worker's fused copy of the model's graph, when fusing changed it; graph_ points
  // into it, so it is declared before graph_ (destroyed after it).
  std::shared_ptr<const ir::Graph> fused_graph_;
  Backend backend_;
  bool profile_ = false;
  std::unique_ptr<DeviceBackend> device_;
  ThreadPool& pool_;
  std::shared_ptr<const CompiledGraph> graph_;
  std::shared_ptr<MemoryBudget> budget_;
  uint64_t plan_cache_bytes_ = 0;
  std::chrono::nanoseconds deadline_{0};
  std::atomic<uint64_t> cancel_count_{0};
  // The scheduling thread changes the list and the current execution under this mutex, which
  // memory_stats() takes from any thread; the scheduling thread reads them without it.
  mutable std::mutex executions_mutex_;
  std::vector<std::unique_ptr<Execution>> executions_;
  Execution* current_ = nullptr;
  std::vector<Tensor> bound_;
  std::vector<char> donated_;  // per input: handed over with InputUse::Donate
  std::vector<std::pair<const std::string*, int64_t>> symbols_;
};

Worker::Worker(const Model& model, Backend backend, const WorkerOptions& options)
    : impl_(std::make_unique<WorkerImpl>(model, backend, options)) {}
Worker::~Worker() = default;
Worker::Worker(Worker&&) noexcept = default;
Worker& Worker::operator=(Worker&&) noexcept = default;

void Worker::schedule(std::initializer_list<NamedTensor> inputs) {
  impl_->schedule(std::span<const NamedTensor>(inputs.begin(), inputs.size()));
}
void Worker::schedule(std::span<const NamedTensor> inputs) { impl_->schedule(inputs); }
void Worker::schedule(const std::map<std::string, Tensor>& inputs) {
  std::vector<NamedTensor> named;
  for (const auto& [name, t] : inputs) named.push_back({name, t});
  impl_->schedule(named);
}
void Worker::schedule(const Tensor& input) {
  const auto& declared = impl_->model_.inputs();
  check(declared.size() == 1,
        "schedule(tensor) needs a model with exactly one input; this one has " +
            std::to_string(declared.size()));
  NamedTensor named{declared[0].name, input};
  impl_->schedule(std::span<const NamedTensor>(&named, 1));
}

const Tensor& Worker::peek_output(std::string_view name) const { return impl_->peek(name); }
const Tensor& Worker::peek_output() const {
  if (impl_->model_.outputs().empty()) throw Error("the model has no outputs");
  return impl_->peek(impl_->model_.outputs()[0].name);
}

Tensor Worker::copy_output(std::string_view name) const {
  const Tensor& source = impl_->peek(name);
  auto impl = std::make_shared<TensorImpl>(DataType::Undefined, Shape{}, nullptr);
  impl->mark_pending();
  Tensor src = source;
  source.impl()->on_complete([src, impl] {
    try {
      Tensor copy = src.readback_and_clone();
      impl->dtype = copy.dtype();
      impl->shape = copy.shape();
      impl->storage = copy.impl()->storage;
      impl->mark_ready();
    } catch (...) {
      impl->mark_failed(std::current_exception());
    }
  });
  return Tensor(impl);
}

Tensor Worker::take_output(std::string_view name) {
  Tensor t = impl_->peek(name);
  impl_->current_->detach(impl_->output_slot(name));
  return t;
}

void Worker::cancel() { impl_->cancel_count_.fetch_add(1, std::memory_order_acq_rel); }

void Worker::set_deadline(std::chrono::nanoseconds deadline) { impl_->deadline_ = deadline; }

MemoryStats Worker::memory_stats() const {
  MemoryStats stats;
  {
    std::lock_guard lock(impl_->executions_mutex_);
    for (const auto& e : impl_->executions_) {
      const Execution::MemoryCounters c = e->memory_counters();
      if (e.get() == impl_->current_) stats.planned_bytes = c.planned_bytes;
      stats.arena_bytes += c.arena_bytes;
      stats.cached_plans += c.cached_plans;
      stats.plan_cache_bytes += c.plan_cache_bytes;
    }
  }
  stats.in_use_bytes = impl_->budget_->in_use();
  // The budget raises its peak just after its use, so a reader on another thread may see the use
  // first: the peak reported is never below the use reported with it.
  stats.peak_bytes = std::max(impl_->budget_->peak(), stats.in_use_bytes);
  stats.memory_limit = impl_->budget_->limit();
  return stats;
}

DeviceCounters Worker::device_counters() const {
  return impl_->device_ ? impl_->device_->counters().snapshot() : DeviceCounters{};
}

const Model& Worker::model() const { return impl_->model_; }
Backend Worker::backend() const { return impl_->backend_; }
std::vector<std::string> Worker::output_names() const {
  std::vector<std::string> names;
  for (const auto& o : impl_->model_.outputs()) names.push_back(o.name);
  return names;
}

std::vector<NodePlacement> Worker::placements() const {
  std::vector<NodePlacement> out;
  for (const CompiledNode& cn : impl_->graph_->nodes) {
    NodePlacement p;
    p.node_name = cn.node->name;
    p.op_type = cn.node->op_type;
    if (cn.device_kernel) {
      p.backend = impl_->backend_;
      p.decided_at_load = cn.decided_at_load;
      const RunTimeFallbackCount fallbacks = cn.device_kernel->run_time_fallbacks();
      p.run_time_fallbacks = fallbacks.runs;
      if (fallbacks.runs > 0)
        p.run_time_reason =
            std::string(to_string(fallbacks.last_cause)) + ": " + fallbacks.last_reason;
    } else if (impl_->device_) {
      p.fallback_reason = cn.placement.substr(cn.placement.find(": ") + 2);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string Worker::device_description() const {
  return impl_->device_ ? impl_->device_->description() : "cpu";
}

Profile Worker::profile() const {
  check(impl_->profile_,
        "Worker::profile: profiling is off; create the worker with "
        "WorkerOptions::profile = true");
  check(impl_->current_ != nullptr, "Worker::profile: nothing has been scheduled yet");
  Execution& run = *impl_->current_;
  run.wait_idle();
  DeviceTimings device;
  if (impl_->device_) {
    impl_->device_->flush();
    device = impl_->device_->take_timings();
  }
  return run.profiler()->build(run.graph(), impl_->backend_, device);
}

// ---- schedule_iterable ------------------------------------------------------------------------

struct LayerSteps::State {
  Execution* execution = nullptr;
  size_t ran = 0;  // layers run so far
  size_t run_next() {
    execution->run_node_inline(ran);
    return ran++;
  }
};

LayerSteps Worker::schedule_iterable(std::initializer_list<NamedTensor> inputs) {
  return schedule_iterable(std::span<const NamedTensor>(inputs.begin(), inputs.size()));
}

LayerSteps Worker::schedule_iterable(std::span<const NamedTensor> inputs) {
  auto state = std::make_shared<LayerSteps::State>();
  state->execution = &impl_->prepare_iterable(inputs);
  return LayerSteps(state);
}

LayerSteps::~LayerSteps() {
  // Layers left when the range is dropped early still run, so outputs never stay pending.
  if (state_ && state_.use_count() == 1) {
    while (state_->ran < size()) state_->run_next();
  }
}

size_t LayerSteps::size() const { return state_->execution->graph().nodes.size(); }

LayerSteps::Iterator LayerSteps::begin() {
  if (state_->ran == 0 && size() > 0) state_->run_next();
  return Iterator(this, 0);
}
LayerSteps::Iterator LayerSteps::end() { return Iterator(this, size()); }

LayerStep LayerSteps::Iterator::operator*() const {
  const ir::Node& n = *owner_->state_->execution->graph().nodes[index_].node;
  return LayerStep{index_, n.op_type, n.name};
}

LayerSteps::Iterator& LayerSteps::Iterator::operator++() {
  ++index_;
  if (index_ < owner_->size() && owner_->state_->ran == index_) owner_->state_->run_next();
  return *this;
}

}  // namespace kiln
