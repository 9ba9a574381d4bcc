// Float Mod (fmod=1) in shaders/binary_elementwise.comp against kiln's CPU op, bit for bit
// (fmod_cases.h).
#include <gtest/gtest.h>

#include <vector>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "fmod_cases.h"
#include "gpu_compute_fixture.h"
#include "gpu_compute_tensor_util.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

Tensor fmod_on_gpu(Device& device, const Tensor& a, const Tensor& b) {
  const BinaryElementwise kernel(device);
  const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), "binary op");
  Buffer ga = to_gpu(device, a), gb = to_gpu(device, b);
  Buffer gc = gpu_buffer(device, DataType::Float32, out_shape);
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, BinaryOp::Mod, ga, a.shape(), gb, b.shape(), gc);
  });
  return from_gpu(device, gc, DataType::Float32, out_shape);
}

TEST_F(GpuCompute, FmodSpecialValuesMatchCpuBitForBit) {
  const auto [x, y] = testing::fmod_special_operands();
  EXPECT_TRUE(testing::same_bits(fmod_on_gpu(device(), x, y), testing::fmod_on_cpu(x, y)));
}

TEST_F(GpuCompute, FmodOfRandomFloatsMatchesCpuBitForBit) {
  const auto [x, y] = testing::fmod_random_operands();
  EXPECT_TRUE(testing::same_bits(fmod_on_gpu(device(), x, y), testing::fmod_on_cpu(x, y)));
  // Broadcasting a row of divisors.
  const Tensor row = testing::f32({64}, std::vector<float>(y.data<float>(), y.data<float>() + 64));
  EXPECT_TRUE(testing::same_bits(fmod_on_gpu(device(), x, row), testing::fmod_on_cpu(x, row)));
}

}  // namespace
}  // namespace kiln::gpu_compute
