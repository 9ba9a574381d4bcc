// shaders/unary_elementwise.comp against kiln's CPU ops (the oracle), for every op of the shared
// table (gpu_unary_cases.h), over negatives, zeros, halves, tiny and large magnitudes,
// infinities, NaN and empty tensors. Every op meets 1e-5 relative plus 1e-6 absolute; none
// needs a looser tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/unary_elementwise.h"
#include "gpu_compute_fixture.h"
#include "gpu_unary_cases.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

Tensor run_on_gpu(Device& device, const UnaryElementwise& kernel, const UnaryParams& params,
                  const Tensor& x) {
  Buffer gx(device, x.byte_size(), MemoryUse::DeviceLocal);
  Buffer gy(device, x.byte_size(), MemoryUse::DeviceLocal);
  upload(device, gx, std::as_bytes(std::span(x.data<float>(), x.element_count())));
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, params, gx, gy, static_cast<uint64_t>(x.element_count()));
  });
  Tensor y = Tensor::zeros(DataType::Float32, x.shape());
  download(device, gy,
           std::as_writable_bytes(std::span(y.mutable_data<float>(), y.element_count())));
  return y;
}

// The brief's tolerance for every op: 1e-5 relative plus 1e-6 absolute. NaN matches NaN and
// infinities match exactly.
void expect_close(const Tensor& gpu, const Tensor& cpu, const Tensor& input, const char* what) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const float* g = gpu.data<float>();
  const float* c = cpu.data<float>();
  const float* x = input.data<float>();
  int reported = 0;
  for (int64_t i = 0; i < cpu.element_count() && reported < 5; ++i) {
    if (!testing::value_matches(g[i], c[i], 1e-6, 1e-5)) {
      ADD_FAILURE() << what << "(" << x[i] << "): gpu " << g[i] << ", cpu " << c[i];
      ++reported;
    }
  }
}

TEST_F(GpuCompute, UnaryOpsMatchCpu) {
  UnaryElementwise kernel(device());
  for (const testing::GpuUnaryCase& op : testing::gpu_unary_cases()) {
    const std::vector<float> values = testing::gpu_unary_values(op.max_magnitude);
    for (const Shape& shape : {Shape{static_cast<int64_t>(values.size())}, Shape{0}, Shape{2, 0}}) {
      const Tensor x =
          testing::f32(shape, shape.size() == 1 && shape[0] > 0 ? values : std::vector<float>{});
      expect_close(run_on_gpu(device(), kernel, op.params, x), op.cpu(x), x, op.label.c_str());
    }
  }
}

TEST_F(GpuCompute, UnaryRoundsHalvesToEvenAndErfIsAccurate) {
  UnaryElementwise kernel(device());
  const Tensor halves = testing::f32({6}, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.5f});
  const Tensor rounded = run_on_gpu(device(), kernel, {UnaryOp::Round}, halves);
  EXPECT_EQ(std::vector<float>(rounded.data<float>(), rounded.data<float>() + 6),
            (std::vector<float>{0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 4.0f}));
  // A dense sweep against double-precision erf: the polynomial and continued-fraction pieces
  // meet at 2, where a weak approximation would show.
  std::vector<float> v;
  for (float t = -6.0f; t <= 6.0f; t += 1.0f / 256) v.push_back(t);
  const Tensor x = testing::f32({static_cast<int64_t>(v.size())}, v);
  const Tensor y = run_on_gpu(device(), kernel, {UnaryOp::Erf}, x);
  double worst = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double exact = std::erf(double{v[i]});
    worst =
        std::max(worst, std::fabs(y.data<float>()[i] - exact) / std::max(std::fabs(exact), 1e-3));
  }
  EXPECT_LT(worst, 1e-6);
}

TEST_F(GpuCompute, UnaryRejectsBadArguments) {
  UnaryElementwise kernel(device());
  DescriptorArena arena(device());
  Buffer small(device(), 4, MemoryUse::DeviceLocal);
  EXPECT_THROW(submit_and_wait(device(),
                               [&](VkCommandBuffer cmd) {
                                 kernel.record(cmd, arena, {UnaryOp::Exp}, small, small, 2);
                               }),
               Error);
  EXPECT_THROW(submit_and_wait(device(),
                               [&](VkCommandBuffer cmd) {
                                 kernel.record(cmd, arena, {static_cast<UnaryOp>(99)}, small, small,
                                               1);
                               }),
               Error);
  EXPECT_THROW(submit_and_wait(device(),
                               [&](VkCommandBuffer cmd) {
                                 kernel.record(cmd, arena, {UnaryOp::Celu, 0.0f}, small, small, 1);
                               }),
               Error);
}

}  // namespace
}  // namespace kiln::gpu_compute
