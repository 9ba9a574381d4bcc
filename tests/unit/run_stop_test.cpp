// Cancellation and deadlines on the CPU: a Loop that would run for ever stops when cancelled from
// another thread or when its deadline passes, its outputs fail at readback with a clear
// kiln::Error, and the worker runs the next schedule normally.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "run_stop_models.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using namespace std::chrono_literals;

void expect_fails_with(const Tensor& t, const std::string& text) {
  try {
    t.readback_and_clone();
    ADD_FAILURE() << "the readback did not fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(RunStop, CancelFromAnotherThreadStopsAnEndlessLoop) {
  Worker worker(endless_loop_model());
  worker.schedule(endless_loop_inputs(int64_t{1000000000000000}));
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    worker.cancel();
  });
  expect_fails_with(worker.peek_output("y"), "run cancelled");
  canceller.join();
  // The worker is ready for the next run, which a cancel() before it does not touch.
  worker.schedule(endless_loop_inputs(3));
  EXPECT_TRUE(all_close(worker.peek_output("y").readback_and_clone(), f32({4}, {4, 5, 6, 7})));
}

TEST(RunStop, DeadlineStopsAnEndlessLoop) {
  Worker worker(endless_loop_model(), Backend::Cpu, {.deadline = 100ms});
  const auto start = std::chrono::steady_clock::now();
  worker.schedule(endless_loop_inputs(int64_t{1000000000000000}));
  expect_fails_with(worker.peek_output("y"), "deadline exceeded");
  // Generous: the point is that it stops, not how fast (no timing assertion beyond "not hung").
  EXPECT_LT(std::chrono::steady_clock::now() - start, 60s);
  worker.schedule(endless_loop_inputs(2));
  EXPECT_TRUE(all_close(worker.peek_output("y").readback_and_clone(), f32({4}, {3, 4, 5, 6})));
  worker.set_deadline(0ns);
  worker.schedule(endless_loop_inputs(5));
  EXPECT_TRUE(all_close(worker.peek_output("y").readback_and_clone(), f32({4}, {6, 7, 8, 9})));
}

TEST(RunStop, CancelStopsALongParallelKernel) {
  // One MatMul of 137 GFLOP, seconds on any CPU: cancelled once it has started, it gives up
  // between its chunks (the run has no later layer that could notice the cancel instead).
  Worker worker(big_matmul_model());
  const Tensor a = Tensor::zeros(DataType::Float32, {4096, 4096});
  worker.schedule({{"a", a}, {"b", a}});
  std::this_thread::sleep_for(30ms);
  worker.cancel();
  expect_fails_with(worker.peek_output("y"), "run cancelled");
  worker.schedule({{"a", Tensor::zeros(DataType::Float32, {2, 2048})},
                   {"b", Tensor::zeros(DataType::Float32, {2048, 2048})}});
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().shape(), (Shape{2, 2048}));
}

TEST(RunStop, CancelStopsOnePlaneOfLargePoolingWindows) {
  // One plane, 35,937 windows of 32,768 taps (over a billion): the windows of a single plane
  // are split into chunks too, so the cancel is seen between them.
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 1, 64, 64, 64});
  b.node("AveragePool", {"x"}, {"y"}).attributes.push_back(ints_attr("kernel_shape", {32, 32, 32}));
  b.output("y");
  Worker worker(b.build());
  worker.schedule({{"x", Tensor::zeros(DataType::Float32, {1, 1, 64, 64, 64})}});
  std::this_thread::sleep_for(30ms);
  worker.cancel();
  expect_fails_with(worker.peek_output("y"), "run cancelled");
}

TEST(RunStop, ScheduleIterableStopsToo) {
  Worker worker(endless_loop_model(), Backend::Cpu, {.deadline = 50ms});
  for (LayerStep step : worker.schedule_iterable(endless_loop_inputs(int64_t{1} << 60))) {
    (void)step;
  }
  expect_fails_with(worker.peek_output("y"), "deadline exceeded");
}

}  // namespace
}  // namespace kiln::testing
