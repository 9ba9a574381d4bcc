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

}  // namespace
}  // namespace kiln::gpu_compute
