// Float Mod (fmod=1) in shaders/binary_elementwise.comp against kiln's CPU op, bit for bit: the
// remainder of C's fmod is exact, so widely different magnitudes, subnormals, signed zeros,
// infinities and NaN must all come out as std::fmod gives them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/vulkan/binary_elementwise.h"
#include "backends/vulkan/command.h"
#include "backends/vulkan/descriptors.h"
#include "test_util.h"
#include "vulkan_fixture.h"
#include "vulkan_tensor_util.h"

namespace kiln::vulkan {
namespace {

Tensor fmod_on_gpu(Device& device, const Tensor& a, const Tensor& b) {
  const BinaryElementwise kernel(device);
  const Shape out_shape = broadcast_shape(a.shape(), b.shape());
  Buffer ga = to_gpu(device, a), gb = to_gpu(device, b);
  Buffer gc = gpu_buffer(device, DataType::Float32, out_shape);
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, BinaryOp::Mod, ga, a.shape(), gb, b.shape(), gc);
  });
  return from_gpu(device, gc, DataType::Float32, out_shape);
}

Tensor fmod_on_cpu(const Tensor& a, const Tensor& b) {
  return testing::OpTest("Mod").input(a).input(b).attr("fmod", int64_t{1}).run()[0];
}

TEST_F(Vulkan, FmodSpecialValuesMatchCpuBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float max = std::numeric_limits<float>::max();
  const std::vector<std::pair<float, float>> pairs = {
      {5.5f, 2.0f},     {-5.5f, 2.0f},      {5.5f, -2.0f},  {-0.0f, 2.0f},  {0.0f, -2.0f},
      {4.0f, 2.0f},     {-4.0f, 2.0f},      {1e30f, 3.1f},  {-1e30f, 0.7f}, {max, tiny},
      {max, 1.5f},      {1e-30f, 3e-38f},   {3e-38f, tiny}, {tiny, tiny},   {7 * tiny, 3 * tiny},
      {1e-40f, 3e-41f}, {-1e-39f, 1e-45f},  {7.0f, 0.0f},   {7.0f, -0.0f},  {inf, 1.0f},
      {-inf, 2.0f},     {nan, 1.0f},        {1.0f, nan},    {2.0f, inf},    {-2.0f, -inf},
      {0.1f, 0.03f},    {16777217.0f, 0.1f}};
  std::vector<float> xs, ys;
  for (auto [x, y] : pairs) {
    xs.push_back(x);
    ys.push_back(y);
  }
  const auto n = static_cast<int64_t>(xs.size());
  const Tensor a = testing::f32({n}, xs), b = testing::f32({n}, ys);
  EXPECT_TRUE(same_tensor(fmod_on_gpu(device(), a, b), fmod_on_cpu(a, b)));
}

TEST_F(Vulkan, FmodOfRandomFloatsMatchesCpuBitForBit) {
  // Random bit patterns of finite floats: every exponent gap, subnormals included.
  std::mt19937 rng(7);
  auto random_float = [&] {
    for (;;) {
      const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
      if (std::isfinite(v)) return v;
    }
  };
  std::vector<float> xs(4096), ys(4096);
  for (float& x : xs) x = random_float();
  for (float& y : ys) y = random_float();
  // And operands of close magnitudes, the common case in models.
  for (size_t i = 0; i < 1024; ++i) ys[i] = xs[i] / (1.0f + static_cast<float>(i % 37));
  const Tensor a = testing::f32({64, 64}, xs), b = testing::f32({64, 64}, ys);
  EXPECT_TRUE(same_tensor(fmod_on_gpu(device(), a, b), fmod_on_cpu(a, b)));
  // Broadcasting a row of divisors.
  const Tensor row = testing::f32({64}, std::vector<float>(ys.begin(), ys.begin() + 64));
  EXPECT_TRUE(same_tensor(fmod_on_gpu(device(), a, row), fmod_on_cpu(a, row)));
}

}  // namespace
}  // namespace kiln::vulkan
