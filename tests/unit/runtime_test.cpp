// The asynchronous API: schedule never waits, outputs are pending until their layer runs,
// errors surface where the user reads, workers run concurrently.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>

#include "core/thread_pool.h"
#include "graph_builder.h"
#include "kernels/op_registry.h"

using namespace kiln;
using kiln::testing::GraphBuilder;

namespace {

std::atomic<int> test_op_runs{0};
std::atomic<int> rendezvous_arrivals{0};

// Test-only ops in the "kiln.test" domain.
void register_test_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& r = OpRegistry::global();
    // Copies its input and counts how often it ran.
    r.add("kiln.test", "Count", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) {
        ++test_op_runs;
        ctx.set_output(0, ctx.input(0).clone());
      };
    });
    // Arrives, then waits up to 5 s for a second arrival: outputs 1 when both met.
    r.add("kiln.test", "Rendezvous", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) {
        ++rendezvous_arrivals;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (rendezvous_arrivals.load() < 2 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ctx.set_output(0, Tensor::scalar<float>(rendezvous_arrivals.load() >= 2 ? 1.f : 0.f));
      };
    });
    r.add("kiln.test", "Fail", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) { ctx.fail("index 7 is out of range for an axis of size 3"); };
    });
  });
}

// x -> Relu -> Count -> y
Model relu_count_model() {
  register_test_ops();
  GraphBuilder b;
  b.input("x", DataType::Float32, {4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Count", {"r"}, {"y"}, "kiln.test");
  b.output("y");
  return b.build();
}

}  // namespace

TEST(Schedule, ReturnsBeforeAnyLayerRuns) {
  Model model = relu_count_model();
  ThreadPool& pool = ThreadPool::shared(2);
  Worker worker(model, Backend::Cpu, WorkerOptions{.num_threads = 2});

  std::promise<void> gate;
  std::shared_future<void> opened = gate.get_future().share();
  std::atomic<int> held{0}, released{0};
  struct Hold : Runnable {
    std::shared_future<void> opened;
    std::atomic<int>* held;
    std::atomic<int>* released;
    void run() override {
      ++*held;
      opened.wait();
      ++*released;  // the last touch of this job: the test may end after it
    }
  } holds[2];
  for (auto& h : holds) {
    h.opened = opened;
    h.held = &held;
    h.released = &released;
    pool.submit(&h);
  }
  while (held.load() < 2) std::this_thread::yield();

  const int runs_before = test_op_runs.load();
  worker.schedule({{"x", Tensor::from_data<float>({4}, {-1, 2, -3, 4})}});
  const Tensor& y = worker.peek_output("y");
  EXPECT_TRUE(y.is_pending());
  EXPECT_FALSE(y.is_readback_request_done());
  EXPECT_EQ(test_op_runs.load(), runs_before);
  EXPECT_THROW(y.data<float>(), Error);  // direct access to pending data is refused, not a stall

  gate.set_value();
  Tensor host = y.readback_and_clone();
  EXPECT_EQ(host.to_vector<float>(), (std::vector<float>{0, 2, 0, 4}));
  EXPECT_TRUE(y.is_readback_request_done());
  EXPECT_EQ(test_op_runs.load(), runs_before + 1);
  while (released.load() < 2) std::this_thread::yield();  // the jobs live on this stack
}

TEST(Schedule, IndependentBranchesRunAtTheSameTime) {
  register_test_ops();
  rendezvous_arrivals = 0;
  GraphBuilder b;
  b.input("x", DataType::Float32, {1});
  b.node("Rendezvous", {"x"}, {"a"}, "kiln.test");
  b.node("Rendezvous", {"x"}, {"b"}, "kiln.test");
  b.output("a");
  b.output("b");
  Model model = b.build();
  Worker worker(model, Backend::Cpu, WorkerOptions{.num_threads = 2});
  worker.schedule({{"x", Tensor::from_data<float>({1}, {0})}});
  // Each branch waits for the other: both report 1 only if they overlapped in time.
  EXPECT_EQ(worker.peek_output("a").readback_and_clone().to_vector<float>()[0], 1.f);
  EXPECT_EQ(worker.peek_output("b").readback_and_clone().to_vector<float>()[0], 1.f);
}

TEST(Schedule, ManyWorkersFromSeveralThreads) {
  Model model = relu_count_model();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Worker worker(model);
      for (int i = 0; i < 50; ++i) {
        const float v = static_cast<float>(t * 100 + i);
        worker.schedule({{"x", Tensor::from_data<float>({4}, {v, -v, v, -1})}});
        auto out = worker.peek_output("y").readback_and_clone().to_vector<float>();
        if (out != std::vector<float>{v, 0, v, 0}) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Schedule, ResultsAreIdenticalFromRunToRun) {
  Model model = relu_count_model();
  Worker worker(model);
  Tensor x = Tensor::from_data<float>({4}, {0.1f, -0.2f, 0.3f, 0.4f});
  worker.schedule({{"x", x}});
  Tensor first = worker.peek_output("y").readback_and_clone();
  for (int i = 0; i < 10; ++i) {
    worker.schedule({{"x", x}});
    Tensor again = worker.peek_output("y").readback_and_clone();
    EXPECT_EQ(0, std::memcmp(first.raw_data(), again.raw_data(), first.byte_size()));
  }
}

TEST(Schedule, BadInputsThrowAtOnceWithAClearMessage) {
  Model model = relu_count_model();
  Worker worker(model);
  auto message = [&](std::initializer_list<NamedTensor> inputs) {
    try {
      worker.schedule(inputs);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message({{"nope", Tensor::zeros(DataType::Float32, {4})}}).find("no input named 'nope'"),
      std::string::npos);
  EXPECT_NE(message({}).find("'x'"), std::string::npos);
  EXPECT_NE(
      message({{"x", Tensor::zeros(DataType::Int64, {4})}}).find("must be float32, got int64"),
      std::string::npos);
  EXPECT_NE(message({{"x", Tensor::zeros(DataType::Float32, {5})}}).find("has shape [5]"),
            std::string::npos);
  EXPECT_NE(message({{"x", Tensor::zeros(DataType::Float32, {4})},
                     {"x", Tensor::zeros(DataType::Float32, {4})}})
                .find("twice"),
            std::string::npos);
}

TEST(Schedule, SymbolicDimensionsMustAgreeAcrossInputs) {
  GraphBuilder b;
  b.symbolic_input("a", DataType::Float32, {"batch", "n"});
  b.symbolic_input("b", DataType::Float32, {"batch", "m"});
  b.node("Relu", {"a"}, {"ra"});
  b.node("Relu", {"b"}, {"rb"});
  b.output("ra");
  b.output("rb");
  Model model = b.build();
  Worker worker(model);
  EXPECT_NO_THROW(worker.schedule({{"a", Tensor::zeros(DataType::Float32, {2, 3})},
                                   {"b", Tensor::zeros(DataType::Float32, {2, 5})}}));
  EXPECT_THROW(worker.schedule({{"a", Tensor::zeros(DataType::Float32, {2, 3})},
                                {"b", Tensor::zeros(DataType::Float32, {3, 5})}}),
               Error);
}

TEST(Schedule, ErrorsWhileRunningSurfaceAtReadback) {
  register_test_ops();
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Fail", {"x"}, {"f"}, "kiln.test");
  b.node("Relu", {"f"}, {"y"});
  b.node("Relu", {"x"}, {"z"});
  b.output("y");
  b.output("z");
  Model model = b.build();
  Worker worker(model);
  EXPECT_NO_THROW(worker.schedule({{"x", Tensor::zeros(DataType::Float32, {2})}}));
  try {
    worker.peek_output("y").readback_and_clone();
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Fail node"), std::string::npos) << e.what();
  }
  // The independent branch is unaffected.
  EXPECT_EQ(worker.peek_output("z").readback_and_clone().to_vector<float>(),
            (std::vector<float>{0, 0}));
  // The future carries the same error.
  auto f = worker.peek_output("y").readback_and_clone_async();
  EXPECT_THROW(f.get(), Error);
}

TEST(Readback, RequestPollAndFuture) {
  Model model = relu_count_model();
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({4}, {1, -1, 2, -2})}});
  const Tensor& y = worker.peek_output("y");
  y.readback_request();
  y.readback_request();  // a second request shares the first
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!y.is_readback_request_done() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  ASSERT_TRUE(y.is_readback_request_done());
  EXPECT_EQ(y.readback_and_clone().to_vector<float>(), (std::vector<float>{1, 0, 2, 0}));
  std::future<Tensor> f = y.readback_and_clone_async();
  EXPECT_EQ(f.get().to_vector<float>(), (std::vector<float>{1, 0, 2, 0}));
  std::vector<float> out(4);
  y.download_to(std::span<float>(out));
  EXPECT_EQ(out, (std::vector<float>{1, 0, 2, 0}));
}

TEST(Outputs, PeekCopyAndTake) {
  Model model = relu_count_model();
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({4}, {1, 2, 3, 4})}});
  Tensor copy = worker.copy_output("y");
  Tensor taken = worker.take_output("y");
  EXPECT_THROW(worker.peek_output("y"), Error);  // taken
  EXPECT_THROW(worker.peek_output("nope"), Error);
  // A new run does not disturb what the caller owns.
  worker.schedule({{"x", Tensor::from_data<float>({4}, {5, 6, 7, 8})}});
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{5, 6, 7, 8}));
  EXPECT_EQ(copy.readback_and_clone().to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(taken.readback_and_clone().to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Outputs, HeldHandleSurvivesTheNextRun) {
  Model model = relu_count_model();
  Worker worker(model);
  worker.schedule({{"x", Tensor::from_data<float>({4}, {1, 2, 3, 4})}});
  Tensor held = worker.peek_output("y");  // a handle copy keeps the first run's data
  worker.schedule({{"x", Tensor::from_data<float>({4}, {9, 9, 9, 9})}});
  EXPECT_EQ(held.readback_and_clone().to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{9, 9, 9, 9}));
}

TEST(Inputs, DroppingTheUsersHandleEarlyIsSafe) {
  Model model = relu_count_model();
  Worker worker(model);
  {
    Tensor x = Tensor::from_data<float>({4}, {1, -2, 3, -4});
    worker.schedule({{"x", x}});
  }  // the worker keeps its own reference
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{1, 0, 3, 0}));
}

TEST(Inputs, AreNeverModified) {
  Model model = relu_count_model();
  Worker worker(model);
  Tensor x = Tensor::from_data<float>({4}, {-1, -2, 3, 4});
  worker.schedule({{"x", x}});
  worker.peek_output("y").readback_and_clone();
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{-1, -2, 3, 4}));
}

TEST(Inputs, APendingOutputOfAnotherWorkerCanBeChained) {
  Model model = relu_count_model();
  Worker first(model), second(model);
  first.schedule({{"x", Tensor::from_data<float>({4}, {-1, 2, -3, 4})}});
  second.schedule({{"x", first.peek_output("y")}});
  EXPECT_EQ(second.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{0, 2, 0, 4}));
}

TEST(ScheduleIterable, RunsOneLayerPerStep) {
  Model model = relu_count_model();
  Worker worker(model);
  const int before = test_op_runs.load();
  std::vector<std::string> ops;
  for (LayerStep step :
       worker.schedule_iterable({{"x", Tensor::from_data<float>({4}, {-1, 1, -1, 1})}})) {
    ops.emplace_back(step.op_type);
    if (ops.size() == 1) EXPECT_EQ(test_op_runs.load(), before);  // Count has not run yet
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"Relu", "Count"}));
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            (std::vector<float>{0, 1, 0, 1}));
}
