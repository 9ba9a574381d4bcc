// shaders/binary_elementwise.comp against kiln's CPU ops (the oracle), over broadcasts, scalars,
// empty tensors and a dispatch large enough to wrap the workgroup grid into Y; and the
// validation layer wired through KILN_VULKAN_VALIDATION.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "gpu_compute_fixture.h"
#include "opdefs/broadcast.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

struct OpCase {
  BinaryOp op;
  const char* onnx;
  double rtol;  // Vulkan allows 2.5 ulp for division and more for pow; the rest are exact
};
const OpCase kOps[] = {{BinaryOp::Add, "Add", 0},    {BinaryOp::Sub, "Sub", 0},
                       {BinaryOp::Mul, "Mul", 0},    {BinaryOp::Div, "Div", 1e-6},
                       {BinaryOp::Pow, "Pow", 2e-5}, {BinaryOp::Max, "Max", 0},
                       {BinaryOp::Min, "Min", 0}};

int64_t count_of(const Shape& s) {
  int64_t n = 1;
  for (size_t d = 0; d < s.size(); ++d) n *= s[d];
  return n;
}

// Values that keep every op finite and meaningful: divisors away from zero, and pow exponents
// that are often integral so negative bases are exercised too.
Tensor random_tensor(const Shape& shape, BinaryOp op, bool second, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(static_cast<size_t>(count_of(shape)));
  for (float& x : v) {
    x = dist(rng);
    if (op == BinaryOp::Div && second && std::fabs(x) < 0.25f) x = 0.5f;
    if (op == BinaryOp::Pow && second && (rng() & 1)) x = std::round(x);
  }
  return testing::f32(shape, v);
}

Tensor run_on_gpu(Device& device, const BinaryElementwise& kernel, BinaryOp op, const Tensor& a,
                  const Tensor& b) {
  const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), "binary op");
  Buffer ga(device, a.byte_size(), MemoryUse::DeviceLocal);
  Buffer gb(device, b.byte_size(), MemoryUse::DeviceLocal);
  Buffer gc(device, static_cast<size_t>(count_of(out_shape)) * sizeof(float),
            MemoryUse::DeviceLocal);
  upload(device, ga, std::as_bytes(std::span(a.data<float>(), a.element_count())));
  upload(device, gb, std::as_bytes(std::span(b.data<float>(), b.element_count())));
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, op, ga, a.shape(), gb, b.shape(), gc);
  });
  Tensor c = Tensor::zeros(DataType::Float32, out_shape);
  download(device, gc,
           std::as_writable_bytes(std::span(c.mutable_data<float>(), c.element_count())));
  return c;
}

void expect_matches(const Tensor& gpu, const Tensor& cpu, double rtol, const std::string& what) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const float* g = gpu.data<float>();
  const float* c = cpu.data<float>();
  int reported = 0;
  for (int64_t i = 0; i < cpu.element_count() && reported < 5; ++i) {
    if (!testing::value_matches(g[i], c[i], 0, rtol)) {
      ADD_FAILURE() << what << " at " << i << ": gpu " << g[i] << ", cpu " << c[i];
      ++reported;
    }
  }
}

std::string describe(const Shape& a, const Shape& b) {
  auto one = [](const Shape& s) {
    std::string out = "[";
    for (size_t d = 0; d < s.size(); ++d) out += (d ? "," : "") + std::to_string(s[d]);
    return out + "]";
  };
  return one(a) + " x " + one(b);
}

TEST_F(GpuCompute, BinaryOpsMatchCpuOverBroadcasts) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{}, {}},                                        // scalars
      {{5}, {}},                                       // tensor and scalar
      {{}, {3, 4}},                                    //
      {{7}, {7}},                                      // same shape
      {{2, 3, 4}, {4}},                                // trailing broadcast
      {{2, 1, 4}, {3, 1}},                             // both sides broadcast
      {{1}, {6}},                                      //
      {{3, 1, 5, 1, 2, 1}, {1, 4, 1, 3, 1, 2}},        // rank 6, alternating
      {{1, 2, 1, 3, 1, 1, 2, 2}, {2, 1, 3, 1, 1, 1}},  // rank 8 with unit dims
      {{300, 257}, {300, 1}},                          // more than one workgroup
      {{0, 3}, {3}},                                   // empty
      {{0}, {1}},                                      //
      {{2, 3}, {0, 1, 3}},                             // empty through broadcasting
  };
  BinaryElementwise kernel(device());
  unsigned seed = 1;
  for (const OpCase& op : kOps) {
    for (const auto& [sa, sb] : shapes) {
      const Tensor a = random_tensor(sa, op.op, false, seed++);
      const Tensor b = random_tensor(sb, op.op, true, seed++);
      const Tensor expected = testing::OpTest(op.onnx).input(a).input(b).run()[0];
      expect_matches(run_on_gpu(device(), kernel, op.op, a, b), expected, op.rtol,
                     std::string(op.onnx) + " " + describe(sa, sb));
    }
  }
}

// C's pow, which ONNX follows, down to the sign of a zero base under an odd power and NaN
// operands that still give 1.
TEST_F(GpuCompute, PowSpecialCasesFollowCpu) {
  const float nan = std::nanf("");
  const Tensor a =
      testing::f32({15}, {-2, -2, 0, 0, 3, -2, 2, -0.5f, -0.0f, -0.0f, -0.0f, -0.0f, nan, 1, nan});
  const Tensor b = testing::f32({15}, {3, 2, 2, -1, 0, 0.5f, -2, -3, 3, -3, -2, 2, 0, nan, 2});
  const Tensor expected = testing::OpTest("Pow").input(a).input(b).run()[0];
  BinaryElementwise kernel(device());
  const Tensor gpu = run_on_gpu(device(), kernel, BinaryOp::Pow, a, b);
  expect_matches(gpu, expected, 2e-5, "Pow");
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (std::isnan(expected.data<float>()[i])) continue;  // a NaN's sign means nothing
    EXPECT_EQ(std::signbit(gpu.data<float>()[i]), std::signbit(expected.data<float>()[i]))
        << "Pow(" << a.data<float>()[i] << ", " << b.data<float>()[i] << ")";
  }
}

TEST_F(GpuCompute, LargeDispatchWrapsIntoY) {
  // 10 million elements in workgroups of 64 need more groups than most devices allow in X.
  const int64_t n = 10'000'000;
  std::vector<float> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i % 1000);
  const Tensor a = testing::f32({n}, values);
  const Tensor b = testing::f32({}, {0.5f});
  BinaryElementwise kernel(device(), 64);
  const Tensor c = run_on_gpu(device(), kernel, BinaryOp::Add, a, b);
  const float* out = c.data<float>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += out[i] != static_cast<float>(i % 1000) + 0.5f;
  EXPECT_EQ(wrong, 0);
}

TEST_F(GpuCompute, BinaryShapeErrors) {
  EXPECT_THROW(broadcast_shapes({2, 3}, {4}, "binary op"), Error);
  EXPECT_THROW(binary_push_constants(BinaryOp::Add, {2, 2, 2, 2, 2, 2, 2}, {}), Error);
  const BinaryPushConstants pc = binary_push_constants(BinaryOp::Mul, {1, 5, 1}, {3, 1, 1});
  EXPECT_EQ(pc.rank, 2u);
  EXPECT_EQ(pc.count, 15u);
  EXPECT_EQ(pc.a_stride[0], 0u);
  EXPECT_EQ(pc.a_stride[1], 1u);
  EXPECT_EQ(pc.b_stride[0], 1u);
  EXPECT_EQ(pc.b_stride[1], 0u);
  // A buffer too small for its shape is caught before anything is recorded.
  BinaryElementwise kernel(device());
  DescriptorArena arena(device());
  Buffer small(device(), 4, MemoryUse::DeviceLocal);
  EXPECT_THROW(submit_and_wait(device(),
                               [&](VkCommandBuffer cmd) {
                                 kernel.record(cmd, arena, BinaryOp::Add, small, {4}, small, {},
                                               small);
                               }),
               Error);
}

TEST_F(GpuCompute, DescriptorArenaGrowsAndResets) {
  // Many small pools force the arena through several of them; after a reset it reuses them.
  BinaryElementwise kernel(device());
  DescriptorArena arena(device(), 4);
  const Tensor a = random_tensor({3}, BinaryOp::Mul, false, 11);
  const Tensor b = random_tensor({}, BinaryOp::Mul, true, 12);
  Buffer ga(device(), a.byte_size(), MemoryUse::DeviceLocal);
  Buffer gb(device(), b.byte_size(), MemoryUse::DeviceLocal);
  Buffer gc(device(), a.byte_size(), MemoryUse::DeviceLocal);
  upload(device(), ga, std::as_bytes(std::span(a.data<float>(), 3)));
  upload(device(), gb, std::as_bytes(std::span(b.data<float>(), 1)));
  for (int round = 0; round < 2; ++round) {
    submit_and_wait(device(), [&](VkCommandBuffer cmd) {
      for (int i = 0; i < 25; ++i) {
        kernel.record(cmd, arena, BinaryOp::Mul, ga, {3}, gb, {}, gc);
      }
    });
    arena.reset();
  }
  Tensor c = Tensor::zeros(DataType::Float32, {3});
  download(device(), gc, std::as_writable_bytes(std::span(c.mutable_data<float>(), 3)));
  expect_matches(c, testing::OpTest("Mul").input(a).input(b).run()[0], 0, "Mul");
}

bool validation_layer_installed() {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties& l : layers) {
    if (std::string(l.layerName) == "VK_LAYER_KHRONOS_validation") return true;
  }
  return false;
}

TEST_F(GpuCompute, ValidationFromEnvironmentReportsNothingForRealWork) {
  if (!validation_layer_installed()) GTEST_SKIP() << "the Vulkan validation layer is not installed";
  ScopedEnv env("KILN_VULKAN_VALIDATION", "1");
  Device validated;
  ASSERT_TRUE(validated.validation_enabled());
  BinaryElementwise kernel(validated);
  const Tensor a = random_tensor({4, 1, 3}, BinaryOp::Add, false, 7);
  const Tensor b = random_tensor({5, 1}, BinaryOp::Add, true, 8);
  const Tensor expected = testing::OpTest("Add").input(a).input(b).run()[0];
  expect_matches(run_on_gpu(validated, kernel, BinaryOp::Add, a, b), expected, 0, "Add");
  for (const std::string& m : validated.validation_messages()) ADD_FAILURE() << m;

  // The messenger really is listening: a buffer without usage flags is invalid usage.
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 16;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (vkCreateBuffer(validated.handle(), &info, nullptr, &buffer) == VK_SUCCESS) {
    vkDestroyBuffer(validated.handle(), buffer, nullptr);
  }
  EXPECT_FALSE(validated.validation_messages().empty());
}

}  // namespace
}  // namespace kiln::gpu_compute
