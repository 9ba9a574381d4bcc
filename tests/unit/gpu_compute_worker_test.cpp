// A Worker on Backend::GpuCompute: the shared worker tests (device_worker_test.cpp) and what only
// this backend does, with the validation layer silent throughout.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backends/gpu_compute/device_tensor.h"
#include "device_worker_fixture.h"
#include "gpu_compute_fixture.h"
#include "graph_builder.h"

namespace kiln::gpu_compute {
namespace {

using kiln::testing::DeviceWorker;
using kiln::testing::GraphBuilder;

class GpuComputeUnderTest : public testing::GpuBackendUnderTest {
 public:
  Backend backend() const override { return Backend::GpuCompute; }
  // Every worker's device runs under the validation layer, and each test fails on its messages.
  void set_up() override {
    validation_.emplace("KILN_VULKAN_VALIDATION", "1");
    if (!shared_device().device) GTEST_SKIP() << shared_device().skip_reason;
    clear_validation_messages_of_all_devices();
  }
  void tear_down() override {
    for (const std::string& m : validation_messages_of_all_devices()) ADD_FAILURE() << m;
    validation_.reset();
  }
  uint64_t downloads_started() const override { return downloads_recorded(); }
  std::vector<std::string> description_mentions() const override { return {"Vulkan"}; }

 private:
  std::optional<ScopedEnv> validation_;
};

GpuComputeUnderTest gpu_compute;

INSTANTIATE_TEST_SUITE_P(GpuComputeWorker, DeviceWorker, ::testing::Values(&gpu_compute),
                         testing::backend_test_name);

class GpuComputeWorker : public testing::GpuWorkerTest {
 protected:
  GpuComputeWorker() : GpuWorkerTest(gpu_compute) {}
};

// Above the device's storage-buffer range (128 MiB on lavapipe) a node runs on the CPU for that
// run instead of failing.
TEST_F(GpuComputeWorker, ATensorBeyondTheBindingRangeStillWorks) {
  const uint64_t range = shared_device().device->info().max_storage_buffer_range;
  if (range > (uint64_t{1} << 28)) GTEST_SKIP() << "this device binds " << range << " bytes";
  const int64_t n = static_cast<int64_t>(range / sizeof(float)) + 1024;
  GraphBuilder b;
  b.input("x", DataType::Float32, {n});
  b.node("Neg", {"x"}, {"y"});
  b.output("y");
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
  Worker worker(b.build(), Backend::GpuCompute);
  worker.schedule({{"x", Tensor::from_data<float>({n}, v)}});
  const Tensor y = worker.peek_output("y").readback_and_clone();
  const float* p = y.data<float>();
  for (int64_t i = 0; i < n; i += 9973) ASSERT_EQ(p[i], -static_cast<float>(i % 1000));
}

// Barriers only where data flows: four unary ops on one input are independent, and so are the
// two products of their results. Run one layer per step (graph order), a run needs a barrier
// after the upload, before the products, before the sum and before the download, plus one where
// the memory plan gives a product the memory of an input the other product has just read: five
// for seven dispatches, where a barrier after every dispatch would make eight. The result is the
// CPU's and the validation layer's synchronization checks stay silent.
TEST_F(GpuComputeWorker, IndependentDispatchesShareOneBarrier) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {4, 64});
  b.node("Relu", {"x"}, {"a"});
  b.node("Neg", {"x"}, {"b"});
  b.node("Abs", {"x"}, {"c"});
  b.node("Sigmoid", {"x"}, {"d"});
  b.node("Mul", {"a", "b"}, {"ab"});
  b.node("Mul", {"c", "d"}, {"cd"});
  b.node("Add", {"ab", "cd"}, {"y"});
  b.output("y");
  const Model model = b.build();
  std::vector<float> v(256);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 17) - 8.0f;
  const Tensor x = Tensor::from_data<float>({4, 64}, v);
  Worker worker(model, Backend::GpuCompute);
  auto run_in_order = [&] {
    for (LayerStep step : worker.schedule_iterable({{"x", x}})) (void)step;
    return worker.peek_output("y").readback_and_clone();
  };
  run_in_order();  // uploads nothing else the second run needs, but plans the memory
  const DeviceCounters before = worker.device_counters();
  const Tensor y = run_in_order();
  const DeviceCounters after = worker.device_counters();
  EXPECT_EQ(after.dispatches - before.dispatches, 7u);
  EXPECT_LE(after.barriers - before.barriers, 5u);
  Worker cpu(model, Backend::Cpu);
  cpu.schedule({{"x", x}});
  const Tensor expected = cpu.peek_output("y").readback_and_clone();
  const auto got = y.to_vector<float>(), want = expected.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-6f) << i;
}

}  // namespace
}  // namespace kiln::gpu_compute
