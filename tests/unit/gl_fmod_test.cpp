// Float Mod (fmod=1) as an OpenGL ES draw against kiln's CPU op, bit for bit: the remainder of
// C's fmod is exact, so widely different magnitudes, subnormals, signed zeros, infinities and
// NaN must all come out as std::fmod gives them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/gl/binary_elementwise.h"
#include "gl_fixture.h"
#include "test_util.h"

namespace kiln::gl {
namespace {

class GlFmod : public Gl {
 protected:
  Tensor fmod_on_gpu(const Tensor& a, const Tensor& b) {
    const BinaryElementwise kernel(context());
    const TextureTensor ga = to_gpu(a), gb = to_gpu(b);
    const BinaryIndexing ix = binary_indexing(a.shape(), b.shape());
    TextureTensor gc(context(), ix.count);
    kernel.record(BinaryOp::Mod, ga, a.shape(), gb, b.shape(), gc);
    return to_host(gc, a.element_count() >= b.element_count() ? a.shape() : b.shape());
  }
};

Tensor fmod_on_cpu(const Tensor& a, const Tensor& b) {
  return testing::OpTest("Mod").input(a).input(b).attr("fmod", int64_t{1}).run()[0];
}

// The first element whose bits differ (NaN matches any NaN), or -1.
int64_t first_difference(const Tensor& gpu, const Tensor& cpu) {
  for (int64_t i = 0; i < cpu.element_count(); ++i) {
    const float g = gpu.data<float>()[i], c = cpu.data<float>()[i];
    if (std::isnan(g) && std::isnan(c)) continue;
    if (std::bit_cast<uint32_t>(g) != std::bit_cast<uint32_t>(c)) return i;
  }
  return -1;
}

TEST_F(GlFmod, SpecialValuesMatchCpuBitForBit) {
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
  const Tensor gpu = fmod_on_gpu(a, b), cpu = fmod_on_cpu(a, b);
  const int64_t i = first_difference(gpu, cpu);
  EXPECT_EQ(i, -1) << "fmod(" << xs[i] << ", " << ys[i] << "): gpu " << gpu.data<float>()[i]
                   << ", cpu " << cpu.data<float>()[i];
}

TEST_F(GlFmod, RandomFloatsMatchCpuBitForBit) {
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
  for (size_t i = 0; i < 1024; ++i) ys[i] = xs[i] / (1.0f + static_cast<float>(i % 37));
  const Tensor a = testing::f32({64, 64}, xs), b = testing::f32({64, 64}, ys);
  const Tensor gpu = fmod_on_gpu(a, b), cpu = fmod_on_cpu(a, b);
  const int64_t i = first_difference(gpu, cpu);
  EXPECT_EQ(i, -1) << "fmod(" << xs[i] << ", " << ys[i] << "): gpu " << gpu.data<float>()[i]
                   << ", cpu " << cpu.data<float>()[i];
}

}  // namespace
}  // namespace kiln::gl
