// OpenGL ES binary element-wise ops against kiln's CPU ops (the oracle), over broadcasts,
// scalars, ranks up to 8 with unit dimensions, odd sizes and empty tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

struct OpCase {
  BinaryOp op;
  const char* onnx;
  double rtol;  // GLSL ES allows 2.5 ulp for division; pow goes through exp2 and log2
};
const OpCase kOps[] = {
    {BinaryOp::Add, "Add", 0},    {BinaryOp::Sub, "Sub", 0},     {BinaryOp::Mul, "Mul", 0},
    {BinaryOp::Div, "Div", 1e-6}, {BinaryOp::Pow, "Pow", 1e-5},  {BinaryOp::Max, "Max", 0},
    {BinaryOp::Min, "Min", 0},    {BinaryOp::PRelu, "PRelu", 0}, {BinaryOp::Mod, "Mod", 0}};

// Divisors away from zero, and pow exponents often integral so negative bases are exercised.
Tensor random_tensor(const Shape& shape, BinaryOp op, bool second, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) {
    x = dist(rng);
    if ((op == BinaryOp::Div || op == BinaryOp::Mod) && second && std::fabs(x) < 0.25f) x = 0.5f;
    if (op == BinaryOp::Pow && second && (rng() & 1)) x = std::round(x);
  }
  return testing::f32(shape, v);
}

Tensor cpu_reference(const OpCase& op, const Tensor& a, const Tensor& b) {
  testing::OpTest test(op.onnx);
  test.input(a).input(b);
  if (op.op == BinaryOp::Mod) test.attr("fmod", 1);
  return test.run()[0];
}

class GpuPixelBinary : public GpuPixel {
 protected:
  Tensor run(const BinaryElementwise& kernel, BinaryOp op, const Tensor& a, const Tensor& b) {
    const TextureTensor ga = to_gpu(a);
    const TextureTensor gb = to_gpu(b);
    const BinaryIndexing ix = binary_indexing(a.shape(), b.shape());
    TextureTensor gc(context(), ix.count);
    kernel.record(op, ga, a.shape(), gb, b.shape(), gc);
    const Shape out = op == BinaryOp::PRelu ? a.shape() : broadcast(a.shape(), b.shape());
    return to_host(gc, out);
  }
  static Shape broadcast(const Shape& a, const Shape& b) {
    const size_t rank = std::max(a.size(), b.size());
    Shape out;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
      const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
      out.push_back(da == 1 ? db : da);
    }
    return out;
  }
};

TEST_F(GpuPixelBinary, OpsMatchCpuOverBroadcasts) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{}, {}},                                        // scalars
      {{5}, {}},                                       // tensor and scalar
      {{}, {3, 4}},                                    //
      {{7}, {7}},                                      // same shape, odd size
      {{2, 3, 4}, {4}},                                // trailing broadcast
      {{2, 1, 4}, {3, 1}},                             // both sides broadcast
      {{1}, {6}},                                      //
      {{3, 1, 5, 1, 2, 1}, {1, 4, 1, 3, 1, 2}},        // rank 6, alternating
      {{1, 2, 1, 3, 1, 1, 2, 2}, {2, 1, 3, 1, 1, 1}},  // rank 8 with unit dims
      {{2, 3, 4, 5, 6, 7, 2}, {2, 3, 4, 5, 6, 7, 2}},  // rank 7, merges to 1
      {{301, 257}, {301, 1}},                          // odd sizes, many texels
      {{0, 3}, {3}},                                   // empty
      {{0}, {1}},                                      //
      {{2, 3}, {0, 1, 3}},                             // empty through broadcasting
  };
  BinaryElementwise kernel(context());
  unsigned seed = 1;
  for (const OpCase& op : kOps) {
    for (const auto& [sa, sb] : shapes) {
      // PRelu broadcasts the slope to x only (unidirectionally).
      if (op.op == BinaryOp::PRelu && broadcast(sa, sb) != sa) continue;
      const Tensor a = random_tensor(sa, op.op, false, seed++);
      const Tensor b = random_tensor(sb, op.op, true, seed++);
      expect_matches(run(kernel, op.op, a, b), cpu_reference(op, a, b), op.rtol,
                     std::string(op.onnx) + " " + sa.to_string() + " x " + sb.to_string());
    }
  }
}

TEST_F(GpuPixelBinary, SpecialValuesFollowCpu) {
  const float inf = INFINITY, nan = NAN;
  const Tensor a = testing::f32({10}, {-2, -2, 0, 0, 3, -2, 2, -0.5f, nan, 1});
  const Tensor b = testing::f32({10}, {3, 2, 2, -1, 0, 0.5f, -2, -3, 1, nan});
  BinaryElementwise kernel(context());
  for (const OpCase& op : kOps) {
    if (op.op == BinaryOp::Mod || op.op == BinaryOp::Div) continue;
    expect_matches(run(kernel, op.op, a, b), cpu_reference(op, a, b), op.rtol, op.onnx);
  }
  // fmod: signs follow the dividend; infinities and zero divisors as in C.
  const Tensor x = testing::f32({8}, {5.5f, -5.5f, 5.5f, -5.5f, 1e6f, 3, inf, 0});
  const Tensor y = testing::f32({8}, {2, 2, -2, -2, 0.3f, inf, 2, 0});
  expect_matches(run(kernel, BinaryOp::Mod, x, y), cpu_reference(kOps[8], x, y), 1e-6, "Mod");
}

TEST_F(GpuPixelBinary, ThreadsShareTheContext) {
  // Executor jobs record from several threads; each call makes the context current for itself.
  BinaryElementwise kernel(context());
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) {
        const int64_t n = 100 + 37 * t + round;
        std::vector<float> a(n), b(n);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<float>(i);
          b[i] = static_cast<float>(t * 1000 + round);
        }
        TextureTensor ga(context(), n), gb(context(), n), gc(context(), n);
        upload(ga, a);
        upload(gb, b);
        kernel.record(BinaryOp::Add, ga, {n}, gb, {n}, gc);
        std::vector<float> c(n);
        download(gc, c);
        for (int64_t i = 0; i < n; ++i) wrong[t] += c[i] != a[i] + b[i];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST_F(GpuPixelBinary, ShapeErrors) {
  EXPECT_THROW(binary_indexing({2, 3}, {4}), Error);
  EXPECT_THROW(binary_indexing({2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1},
                               {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}),
               Error);
  const BinaryIndexing ix = binary_indexing({1, 5, 1}, {3, 1, 1});
  EXPECT_EQ(ix.rank, 2);
  EXPECT_EQ(ix.count, 15);
  EXPECT_EQ(ix.a_stride[0], 0);
  EXPECT_EQ(ix.a_stride[1], 1);
  EXPECT_EQ(ix.b_stride[0], 1);
  EXPECT_EQ(ix.b_stride[1], 0);
  BinaryElementwise kernel(context());
  TextureTensor small(context(), 1);
  TextureTensor out(context(), 4);
  EXPECT_THROW(kernel.record(BinaryOp::Add, small, {4}, small, {}, out), Error);
  TextureTensor four(context(), 4);
  TextureTensor wrong(context(), 3);
  EXPECT_THROW(kernel.record(BinaryOp::Add, four, {4}, small, {}, wrong), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
