// kiln.Worker: schedule, run, schedule_iterable, the outputs, placements.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

#include "bindings.h"
#include "deferred_release.h"
#include "kiln/interop.h"
#include "kiln/kiln.h"
#include "tensor_object.h"
#include "values.h"

namespace py = pybind11;

namespace kiln_python {
namespace {

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

// Destroying a worker waits for its runs: without the GIL, so that their jobs never wait on it.
template <class T>
void destroy_without_gil(std::optional<T>& object, std::mutex* mutex = nullptr) {
  if (!object) return;
  if (interpreter_finalizing()) {
    object.reset();
    return;
  }
  WithoutGil unlocked;
  std::unique_lock<std::mutex> lock;
  if (mutex) lock = std::unique_lock(*mutex);
  object.reset();
}

// A kiln::Worker is used from one thread at a time. Python code may share one between threads
// (onnxruntime's InferenceSession.run is thread-safe, and scripts rely on it), so every call
// into the worker holds its mutex, taken after the GIL is released (never the other way round,
// which could deadlock). A run's readback waits happen outside it, so runs still overlap.
struct PyWorker {
  PyWorker(const kiln::Model& model, const std::string& backend, int num_threads, bool strict,
           bool verify_shapes, uint64_t memory_limit, double deadline)
      : model(model) {
    const kiln::Backend b = kiln::parse_backend(backend);
    if (!(deadline >= 0)) throw kiln::Error("deadline must be a number of seconds >= 0");
    kiln::WorkerOptions options{
        .num_threads = num_threads,
        .strict = strict,
        .verify_shapes = verify_shapes,
        .memory_limit = memory_limit,
        .deadline = std::chrono::nanoseconds(static_cast<int64_t>(std::min(deadline, 1e9) * 1e9))};
    WithoutGil unlocked;  // compiling the graph and starting a GPU device take a while
    worker.emplace(model, b, options);
  }
  ~PyWorker() { destroy_without_gil(worker, &mutex); }

  // Runs `f` on the worker without the GIL, holding the worker's mutex.
  template <class F>
  auto exclusive(F&& f) {
    WithoutGil unlocked;
    std::lock_guard lock(mutex);
    return f(*worker);
  }

  void schedule(py::handle feeds) {
    Feeds converted = feeds_from_python(model, feeds);
    auto named = converted.named();
    exclusive([&](kiln::Worker& w) { w.schedule(std::span<const kiln::NamedTensor>(named)); });
  }

  std::vector<std::string> output_names(py::handle names) const {
    if (names.is_none()) return worker->output_names();
    if (PyUnicode_Check(names.ptr())) throw kiln::Error("output_names must be a list of names");
    return names.cast<std::vector<std::string>>();
  }

  py::list run(py::handle feeds, py::handle names) {
    Feeds converted = feeds_from_python(model, feeds);
    auto named = converted.named();
    const std::vector<std::string> wanted = output_names(names);
    std::vector<kiln::Tensor> results;
    results.reserve(wanted.size());
    {
      WithoutGil unlocked;
      {
        std::lock_guard lock(mutex);
        worker->schedule(std::span<const kiln::NamedTensor>(named));
        for (const std::string& name : wanted) results.push_back(worker->peek_output(name));
      }
      for (kiln::Tensor& r : results) r.readback_request();  // GPU downloads overlap
      for (kiln::Tensor& r : results) {
        kiln::wait_ready(r);
        if (r.kind() == kiln::ValueKind::Tensor && kiln::on_device(r)) r = r.readback_and_clone();
      }
    }
    py::list out;
    for (const kiln::Tensor& r : results) out.append(python_from_host_value(host_value(r)));
    return out;
  }

  kiln::Model model;
  std::optional<kiln::Worker> worker;
  std::mutex mutex;
};

// schedule_iterable as a Python iterator: each next() runs one layer without the GIL.
struct PyLayerSteps {
  PyLayerSteps(py::object owner, kiln::LayerSteps steps)
      : owner(std::move(owner)), worker(this->owner.cast<PyWorker&>()) {
    this->steps.emplace(std::move(steps));
  }
  ~PyLayerSteps() {
    position.reset();
    destroy_without_gil(steps, &worker.mutex);  // runs the layers left: no output stays pending
  }

  kiln::LayerStep next() {
    {
      WithoutGil unlocked;
      std::lock_guard lock(worker.mutex);
      if (!position) {
        position.emplace(steps->begin());
      } else if (*position != steps->end()) {
        ++*position;
      }
    }
    if (*position == steps->end()) throw py::stop_iteration();
    return **position;
  }

  py::object owner;  // the worker, which owns the run
  PyWorker& worker;
  std::optional<kiln::LayerSteps> steps;
  std::optional<kiln::LayerSteps::Iterator> position;
};

}  // namespace

void bind_worker(py::module_& m) {
  py::class_<kiln::LayerStep>(m, "LayerStep", "One step of schedule_iterable: the layer that ran.")
      .def_readonly("index", &kiln::LayerStep::index)
      .def_property_readonly("op_type",
                             [](const kiln::LayerStep& s) { return std::string(s.op_type); })
      .def_property_readonly("node_name",
                             [](const kiln::LayerStep& s) { return std::string(s.node_name); })
      .def("__repr__", [](const kiln::LayerStep& s) {
        return "<LayerStep " + std::to_string(s.index) + " " + std::string(s.op_type) + " '" +
               std::string(s.node_name) + "'>";
      });

  py::class_<kiln::NodePlacement>(m, "NodePlacement", "Where one node runs, and why.")
      .def_readonly("node_name", &kiln::NodePlacement::node_name)
      .def_readonly("op_type", &kiln::NodePlacement::op_type)
      .def_property_readonly(
          "backend",
          [](const kiln::NodePlacement& p) { return std::string(kiln::backend_name(p.backend)); })
      .def_readonly("fallback_reason", &kiln::NodePlacement::fallback_reason)
      .def("__repr__", [](const kiln::NodePlacement& p) {
        return "<" + p.op_type + " '" + p.node_name + "' on " +
               std::string(kiln::backend_name(p.backend)) +
               (p.fallback_reason.empty() ? "" : " (" + p.fallback_reason + ")") + ">";
      });

  py::class_<PyLayerSteps>(m, "LayerSteps")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyLayerSteps::next)
      .def("__len__", [](const PyLayerSteps& s) { return s.steps->size(); });

  py::class_<PyWorker>(m, "Worker", R"(Runs a model on one backend, asynchronously.

    worker = kiln.Worker(model, backend="cpu")   # or "gpu-compute", "gpu-pixel"
    worker.schedule({"x": x})                    # returns at once
    y = worker.peek_output("y").numpy()          # waits for that output

Calls from several threads are serialized (each schedule and its outputs stay together in run());
several workers run at once.)")
      .def(py::init<const kiln::Model&, const std::string&, int, bool, bool, uint64_t, double>(),
           py::arg("model"), py::arg("backend") = "cpu", py::arg("num_threads") = 0,
           py::arg("strict") = false, py::arg("verify_shapes") = false, py::arg("memory_limit") = 0,
           py::arg("deadline") = 0.0,
           "memory_limit: bytes the worker's runs may hold (0: three quarters of the machine's "
           "memory); deadline: each run's time limit in seconds (0: none).")
      .def(
          "cancel", [](PyWorker& w) { w.worker->cancel(); },
          "Stops the runs scheduled so far: their outputs raise kiln.Error('run cancelled'). "
          "Safe from any thread, also while another one waits for an output.")
      .def(
          "memory_stats",
          [](const PyWorker& w) {
            const kiln::MemoryStats s = w.worker->memory_stats();
            py::dict d;
            d["planned_bytes"] = s.planned_bytes;
            d["arena_bytes"] = s.arena_bytes;
            d["cached_plans"] = s.cached_plans;
            d["plan_cache_bytes"] = s.plan_cache_bytes;
            d["in_use_bytes"] = s.in_use_bytes;
            d["peak_bytes"] = s.peak_bytes;
            d["memory_limit"] = s.memory_limit;
            return d;
          },
          "The worker's host memory: planned_bytes, arena_bytes, cached_plans, "
          "plan_cache_bytes, in_use_bytes, peak_bytes, memory_limit.")
      .def(
          "device_counters",
          [](const PyWorker& w) {
            const kiln::DeviceCounters c = w.worker->device_counters();
            py::dict d;
            d["dispatches"] = c.dispatches;
            d["barriers"] = c.barriers;
            d["submissions"] = c.submissions;
            d["bytes_uploaded"] = c.bytes_uploaded;
            d["bytes_downloaded"] = c.bytes_downloaded;
            d["recording_seconds"] = std::chrono::duration<double>(c.recording_time).count();
            d["nodes_recorded"] = c.nodes_recorded;
            d["nodes_replayed"] = c.nodes_replayed;
            return d;
          },
          "What a GPU worker asked of its device so far (all zero on the cpu backend): "
          "dispatches (draws on gpu-pixel), barriers, submissions, bytes_uploaded, "
          "bytes_downloaded, recording_seconds (CPU time spent recording), nodes_recorded, "
          "nodes_replayed (device nodes replayed from their previous recording).")
      .def("schedule", &PyWorker::schedule, py::arg("feeds"),
           R"(Queues every layer of one run and returns without waiting.

`feeds` maps input names to numpy arrays (lists for sequences, None for empty optionals,
kiln.Tensor for another worker's output); a single-input model also takes the array alone.
C-contiguous arrays are borrowed, not copied: do not write into them until the run's outputs are
read. Raises kiln.Error for an unknown or missing input, or a wrong dtype or shape.)")
      .def("run", &PyWorker::run, py::arg("feeds"), py::arg("output_names") = py::none(),
           "schedule(feeds), then the outputs named (all when None) as numpy arrays.")
      .def(
          "schedule_iterable",
          [](py::object self, py::handle feeds) {
            PyWorker& w = self.cast<PyWorker&>();
            Feeds converted = feeds_from_python(w.model, feeds);
            auto named = converted.named();
            std::optional<kiln::LayerSteps> steps;
            w.exclusive([&](kiln::Worker& worker) {
              steps.emplace(worker.schedule_iterable(std::span<const kiln::NamedTensor>(named)));
            });
            return std::make_unique<PyLayerSteps>(self, std::move(*steps));
          },
          py::arg("feeds"),
          "Like schedule, but runs one layer per step of the returned iterator, on the calling "
          "thread; layers left when the iterator is dropped run then.")
      .def(
          "peek_output",
          [](PyWorker& w, std::optional<std::string> name) {
            return w.exclusive([&](kiln::Worker& worker) {
              return PyTensor{name ? worker.peek_output(*name) : worker.peek_output(), {}};
            });
          },
          py::arg("name") = py::none(),
          "The output of the latest run (the first output when no name is given); it may still "
          "be pending. The Tensor keeps this run's data even after the next schedule.")
      .def(
          "take_output",
          [](PyWorker& w, const std::string& name) {
            return w.exclusive([&](kiln::Worker& worker) {
              return PyTensor{worker.take_output(name), {}};
            });
          },
          py::arg("name"), "Hands the output over; the worker forgets it.")
      .def_property_readonly("output_names",
                             [](const PyWorker& w) { return w.worker->output_names(); })
      .def_property_readonly("model", [](const PyWorker& w) { return w.model; })
      .def_property_readonly(
          "backend",
          [](const PyWorker& w) { return std::string(kiln::backend_name(w.worker->backend())); })
      .def(
          "placements", [](const PyWorker& w) { return w.worker->placements(); },
          "Per node of the optimized graph, in execution order: where it runs and why.")
      .def("device_description", [](const PyWorker& w) { return w.worker->device_description(); });
}

}  // namespace kiln_python
