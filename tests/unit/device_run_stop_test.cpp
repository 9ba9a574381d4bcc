// Cancellation and deadlines on both GPU backends: the endless Loop runs on the CPU, its result
// feeds a layer on the device; a cancel or a deadline fails the device layer's output at
// readback with the same clear error, and the worker runs the next schedule normally.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "device_worker_fixture.h"
#include "run_stop_models.h"

namespace kiln::testing {
namespace {

using namespace std::chrono_literals;

std::string readback_error(const Tensor& t) {
  try {
    t.readback_and_clone();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_P(DeviceWorker, CancelAndDeadlineStopAnEndlessLoop) {
  const Model model = endless_loop_model();
  Worker worker(model, backend());
  const auto placements = worker.placements();
  ASSERT_EQ(placements.back().op_type, "Relu");
  EXPECT_EQ(placements.back().backend, backend());  // the output comes from the device

  worker.schedule(endless_loop_inputs(int64_t{1000000000000000}));
  std::thread canceller([&] {
    std::this_thread::sleep_for(50ms);
    worker.cancel();
  });
  EXPECT_EQ(readback_error(worker.peek_output("y")), "run cancelled");
  canceller.join();
  worker.schedule(endless_loop_inputs(3));
  EXPECT_TRUE(all_close(worker.peek_output("y").readback_and_clone(), f32({4}, {4, 5, 6, 7})));

  worker.set_deadline(100ms);
  worker.schedule(endless_loop_inputs(int64_t{1000000000000000}));
  EXPECT_NE(readback_error(worker.peek_output("y")).find("deadline exceeded"), std::string::npos);
  worker.schedule(endless_loop_inputs(1));
  EXPECT_TRUE(all_close(worker.peek_output("y").readback_and_clone(), f32({4}, {2, 3, 4, 5})));
}

}  // namespace
}  // namespace kiln::testing
