// Many workers over shared models, from many threads at once, on each backend: different models,
// different input shapes, readbacks from threads other than the one that scheduled, and workers
// destroyed while their run is still pending. Every result must equal what one worker on one
// thread computed for the same model and input before the threads started.
//
// The suites are named by backend (ConcurrencyStress, GpuComputeConcurrencyStress,
// GpuPixelConcurrencyStress) so that the sanitizer run treats each like the backend's other tests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "graph_builder.h"
#include "kiln/kiln.h"

namespace kiln::testing {
namespace {

// y = Softmax(Relu(x) * 2 + x) over the last axis, for any [n, w]: one model whose plans change
// with every input shape.
Model symbolic_model() {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"n", "w"});
  b.initializer("two", Tensor::scalar(2.0f));
  b.node("Relu", {"x"}, {"r"});
  b.node("Mul", {"r", "two"}, {"m"});
  b.node("Add", {"m", "x"}, {"s"});
  b.node("Softmax", {"s"}, {"y"}).attributes.push_back(int_attr("axis", -1));
  b.output("y");
  return b.build();
}

struct Case {
  size_t model;       // index into Stress::models_
  std::string input;  // the model's input name
  Tensor x;
  Tensor expected;  // from one CPU worker on one thread
};

Tensor ramp(const Shape& shape, float scale) {
  std::vector<float> values(static_cast<size_t>(shape.element_count()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = scale * static_cast<float>(static_cast<int>(i % 17) - 8);
  return Tensor::from_data<float>(shape, values);
}

bool has_device(Backend backend) {
  if (backend == Backend::Cpu) return true;
  for (const DeviceInfo& device : list_devices())
    if (device.backend == backend && device.usable) return true;
  return false;
}

class Stress {
 public:
  Stress() {
    models_.push_back(load_model(KILN_SOURCE_DIR "/demo/digits.onnx"));
    models_.push_back(symbolic_model());
    for (int64_t batch : {1, 3, 5}) add_case(0, "pixels", ramp({batch, 1, 8, 8}, 0.25f));
    for (int64_t n : {1, 2, 4})
      for (int64_t w : {3, 8, 33}) add_case(1, "x", ramp({n, w}, 0.1f * static_cast<float>(w)));
  }

  // `threads` threads each run `rounds` cases on fresh and reused workers of `backend`.
  void run(Backend backend, int threads, int rounds) {
    std::atomic<int> checked{0};
    std::atomic<int> mismatches{0};
    std::mutex errors_mutex;
    std::vector<std::string> errors;
    auto check = [&](const Case& c, const Tensor& y) {
      ++checked;
      if (!all_close(y, c.expected)) ++mismatches;
    };
    auto body = [&](int thread) {
      try {
        // A worker per model kept across rounds, beside the ones made and dropped each round.
        std::map<size_t, Worker> kept;
        for (int round = 0; round < rounds; ++round) {
          const Case& c = cases_[static_cast<size_t>(thread * 7 + round * 5) % cases_.size()];
          const Model& model = models_[c.model];
          switch ((thread + round) % 4) {
            case 0: {  // a fresh worker, read on this thread
              Worker worker(model, backend, {.num_threads = 1});
              worker.schedule({{c.input, c.x}});
              check(c, worker.peek_output().readback_and_clone());
              break;
            }
            case 1: {  // a kept worker, read on another thread
              auto [it, added] = kept.try_emplace(c.model, model, backend, WorkerOptions{});
              it->second.schedule({{c.input, c.x}});
              const Tensor pending = it->second.peek_output();
              std::thread reader([&] { check(c, pending.readback_and_clone()); });
              reader.join();
              break;
            }
            case 2: {  // a kept worker, read through the awaitable readback
              auto [it, added] = kept.try_emplace(c.model, model, backend, WorkerOptions{});
              it->second.schedule({{c.input, c.x}});
              check(c, it->second.peek_output().readback_and_clone_async().get());
              break;
            }
            default: {  // a worker destroyed with its run pending; its output outlives it
              Tensor pending;
              {
                Worker worker(model, backend, {.num_threads = 1});
                worker.schedule({{c.input, c.x}});
                pending = worker.peek_output();
              }
              check(c, pending.readback_and_clone());
              break;
            }
          }
        }
      } catch (const std::exception& e) {
        std::lock_guard lock(errors_mutex);
        errors.push_back(e.what());
      }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
    for (std::thread& t : pool) t.join();
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_EQ(checked.load(), threads * rounds);
    EXPECT_EQ(mismatches.load(), 0) << "results that differ from the single-threaded run";
  }

 private:
  void add_case(size_t model, const std::string& input, Tensor x) {
    Worker worker(models_[model], Backend::Cpu, {.num_threads = 1});
    worker.schedule({{input, x}});
    Tensor expected = worker.peek_output().readback_and_clone();
    cases_.push_back({model, input, std::move(x), std::move(expected)});
  }

  std::vector<Model> models_;
  std::vector<Case> cases_;
};

TEST(ConcurrencyStress, CpuWorkersOnSharedModelsFromManyThreads) {
  Stress().run(Backend::Cpu, 8, 100);
}

TEST(GpuComputeConcurrencyStress, WorkersOnSharedModelsFromManyThreads) {
  if (!has_device(Backend::GpuCompute)) GTEST_SKIP() << "no gpu-compute device";
  Stress().run(Backend::GpuCompute, 4, 8);
}

TEST(GpuPixelConcurrencyStress, WorkersOnSharedModelsFromManyThreads) {
  if (!has_device(Backend::GpuPixel)) GTEST_SKIP() << "no gpu-pixel device";
  Stress().run(Backend::GpuPixel, 4, 8);
}

}  // namespace
}  // namespace kiln::testing
