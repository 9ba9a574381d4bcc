// OpenGL ES reductions against kiln's CPU ops (the oracle): every op over leading, middle,
// trailing and merged axes, NaN propagation, and empty reductions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/gpu_pixel/reduce.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

const ReduceOp kOps[] = {ReduceOp::Sum,       ReduceOp::Mean,     ReduceOp::Max, ReduceOp::Min,
                         ReduceOp::Prod,      ReduceOp::L1,       ReduceOp::L2,  ReduceOp::LogSum,
                         ReduceOp::LogSumExp, ReduceOp::SumSquare};

// LogSum needs positive sums; the other ops see both signs. Prod stays near magnitude 1.
Tensor random_tensor(const Shape& shape, ReduceOp op, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.5f, 1.5f);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = op == ReduceOp::LogSum || (rng() & 1) ? dist(rng) : -dist(rng);
  return testing::f32(shape, v);
}

struct Case {
  Shape x;
  std::vector<int64_t> axes;
  ReduceShape folded;
};

class GpuPixelReduce : public GpuPixel {
 protected:
  void check_case(ReduceOp op, const Tensor& x, const Case& c, const std::string& what) {
    const Tensor want = testing::OpTest(op_type_of(op))
                            .input(x)
                            .input(testing::i64({static_cast<int64_t>(c.axes.size())}, c.axes))
                            .constant_input(1)
                            .run()[0];
    TextureTensor gy(context(), want.element_count());
    if (x.element_count() > 0) {
      const TextureTensor gx = to_gpu(x);
      Reduce(context()).record(op, c.folded, gx, gy);
    } else {
      Reduce(context()).record(op, c.folded, TextureTensor(), gy);
    }
    expect_matches(to_host(gy, want.shape()), want, 1e-5, std::string(op_type_of(op)) + what, 1e-6);
  }
};

TEST_F(GpuPixelReduce, EveryOpMatchesCpuOverFoldedAxes) {
  const std::vector<Case> cases = {
      {{3, 5, 4}, {1}, {3, 5, 4}},        {{3, 5, 4}, {0}, {1, 3, 20}},
      {{3, 5, 4}, {2}, {15, 4, 1}},       {{3, 5, 4}, {0, 1}, {1, 15, 4}},
      {{2, 3, 7}, {0, 1, 2}, {1, 42, 1}}, {{2, 300, 3}, {1}, {2, 300, 3}},
  };
  unsigned seed = 1;
  for (const ReduceOp op : kOps) {
    for (const Case& c : cases) {
      check_case(
          op, random_tensor(c.x, op, seed++), c,
          " of " + std::to_string(c.x.element_count()) + " over axis " + std::to_string(c.axes[0]));
    }
  }
}

TEST_F(GpuPixelReduce, NanPropagatesThroughMaxMinAndLogSumExp) {
  std::vector<float> v(12, 1.0f);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  v[6] = std::numeric_limits<float>::infinity();
  const Tensor x = testing::f32({3, 4}, v);
  for (const ReduceOp op : {ReduceOp::Max, ReduceOp::Min, ReduceOp::LogSumExp, ReduceOp::Sum}) {
    check_case(op, x, {{3, 4}, {1}, {3, 4, 1}}, " with NaN and inf");
    check_case(op, x, {{3, 4}, {0}, {1, 3, 4}}, " with NaN and inf down columns");
  }
}

TEST_F(GpuPixelReduce, EmptyReductionGivesIdentity) {
  const Tensor x = testing::f32({2, 0, 3}, {});
  for (const ReduceOp op : kOps) check_case(op, x, {{2, 0, 3}, {1}, {2, 0, 3}}, " empty");
}

TEST_F(GpuPixelReduce, BadShapesAreErrors) {
  const TextureTensor x = to_gpu(testing::f32({6}, {1, 2, 3, 4, 5, 6}));
  TextureTensor y(context(), 2);
  EXPECT_THROW(Reduce(context()).record(ReduceOp::Sum, {2, 4, 1}, x, y), Error);
  EXPECT_THROW(Reduce(context()).record(ReduceOp::Sum, {3, 2, 1}, x, y), Error);
  EXPECT_THROW(Reduce(context()).record(ReduceOp::Sum, {-2, 3, 1}, x, y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
