// shaders/gather.comp on indices the host never sees (computed on the device): out-of-range
// values, int64 values beyond 32 bits included, are clamped into the axis instead of reading
// outside the data buffer.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/gather.h"
#include "gpu_compute_fixture.h"

namespace kiln::gpu_compute {
namespace {

TEST_F(GpuCompute, GatherClampsOutOfRangeDeviceIndices) {
  const std::vector<float> data = {10, 11, 12, 13};
  const std::vector<int64_t> idx = {7, -9, -1, int64_t{1} << 40, -(int64_t{1} << 40), 2};
  const std::vector<float> expected = {13, 10, 13, 13, 10, 12};
  const auto plan = gather_plan({4}, {6}, 0, DataType::Float32, DataType::Int64);
  ASSERT_TRUE(plan.has_value());
  Buffer gd(device(), data.size() * sizeof(float), MemoryUse::DeviceLocal);
  Buffer gi(device(), idx.size() * sizeof(int64_t), MemoryUse::DeviceLocal);
  Buffer go(device(), expected.size() * sizeof(float), MemoryUse::DeviceLocal);
  upload(device(), gd, std::as_bytes(std::span(data)));
  upload(device(), gi, std::as_bytes(std::span(idx)));
  Gather kernel(device());
  DescriptorArena arena(device());
  submit_and_wait(device(),
                  [&](VkCommandBuffer cmd) { kernel.record(cmd, arena, plan->pc, gd, gi, go); });
  std::vector<float> out(expected.size());
  download(device(), go, std::as_writable_bytes(std::span(out)));
  EXPECT_EQ(out, expected);
}

TEST_F(GpuCompute, GatherPlanLeavesMalformedInputsToTheCpu) {
  EXPECT_FALSE(gather_plan({}, {2}, 0, DataType::Float32, DataType::Int64));
  EXPECT_FALSE(gather_plan({3, 4}, {2}, 2, DataType::Float32, DataType::Int64));
  EXPECT_FALSE(gather_plan({3, 4}, {2}, 0, DataType::Float32, DataType::Float32));
  EXPECT_FALSE(gather_elements_plan({3, 4}, {3}, 0, DataType::Float32, DataType::Int64));
  EXPECT_FALSE(gather_elements_plan({3, 4}, {2, 5}, 0, DataType::Float32, DataType::Int64));
}

}  // namespace
}  // namespace kiln::gpu_compute
