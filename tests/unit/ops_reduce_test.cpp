// The Reduce* ops and ArgMax / ArgMin against a naive double-precision reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::f32;
using testing::i64;
using testing::OpTest;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor random_f32(const Shape& shape, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return f32(shape, v);
}

// Reduces `x` over the axes in `mask` with op in double.
Tensor reference_reduce(const std::string& op, const Tensor& x, const std::vector<bool>& mask,
                        bool keepdims) {
  const Shape& s = x.shape();
  Shape out_shape, out_full;
  for (size_t d = 0; d < s.size(); ++d) {
    out_full.push_back(mask[d] ? 1 : s[d]);
    if (!mask[d] || keepdims) out_shape.push_back(mask[d] ? 1 : s[d]);
  }
  const int64_t out_count = out_full.element_count();
  std::vector<std::vector<double>> groups(static_cast<size_t>(out_count));
  const float* p = x.data<float>();
  for (int64_t i = 0; i < x.element_count(); ++i) {
    int64_t rest = i, o = 0, stride = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const int64_t idx = rest % s[d];
      rest /= s[d];
      if (!mask[d]) o += idx * stride;
      stride *= out_full[d];
    }
    groups[static_cast<size_t>(o)].push_back(p[i]);
  }
  std::vector<float> y;
  for (const auto& g : groups) {
    double r = 0;
    if (op == "ReduceSum") {
      for (double v : g) r += v;
    } else if (op == "ReduceMean") {
      for (double v : g) r += v;
      r /= g.size();
    } else if (op == "ReduceMax") {
      r = -kInf;
      for (double v : g) r = std::max(r, v);
    } else if (op == "ReduceMin") {
      r = kInf;
      for (double v : g) r = std::min(r, v);
    } else if (op == "ReduceProd") {
      r = 1;
      for (double v : g) r *= v;
    } else if (op == "ReduceL1") {
      for (double v : g) r += std::fabs(v);
    } else if (op == "ReduceL2") {
      for (double v : g) r += v * v;
      r = std::sqrt(r);
    } else if (op == "ReduceSumSquare") {
      for (double v : g) r += v * v;
    } else if (op == "ReduceLogSum") {
      for (double v : g) r += v;
      r = std::log(r);
    } else if (op == "ReduceLogSumExp") {
      for (double v : g) r += std::exp(v);
      r = std::log(r);
    }
    y.push_back(static_cast<float>(r));
  }
  return f32(out_shape, y);
}

const std::vector<std::string> kOps = {
    "ReduceSum", "ReduceMean", "ReduceMax",       "ReduceMin",    "ReduceProd",
    "ReduceL1",  "ReduceL2",   "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};

int axes_input_opset(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

TEST(Reduce, AllOpsAllAxisSubsetsAgainstReference) {
  const std::vector<Shape> shapes = {{5},          {3, 4},     {2, 3, 4},
                                     {2, 1, 3, 5}, {300, 130}, {70, 3, 200}};
  uint32_t seed = 1;
  for (const std::string& op : kOps) {
    for (const Shape& shape : shapes) {
      // LogSum needs positive inputs.
      const Tensor x = random_f32(shape, seed++, op == "ReduceLogSum" ? 0.1f : -2.0f, 2.0f);
      const size_t rank = shape.size();
      for (uint32_t m = 0; m < (1u << rank); ++m) {
        std::vector<bool> mask(rank);
        std::vector<int64_t> axes;
        for (size_t d = 0; d < rank; ++d) {
          mask[d] = (m >> d) & 1;
          // Alternate positive and negative spellings of the axes.
          if (mask[d])
            axes.push_back(d % 2 ? static_cast<int64_t>(d) - static_cast<int64_t>(rank) : d);
        }
        if (axes.empty()) mask.assign(rank, true);  // no axes: every axis
        for (int keepdims = 0; keepdims < 2; ++keepdims) {
          const Tensor want = reference_reduce(op, x, mask, keepdims);
          const std::string what = op + " " + shape.to_string() + " mask=" + std::to_string(m) +
                                   " keepdims=" + std::to_string(keepdims);
          // Axes as an input (current opsets) and as an attribute (opset 11).
          OpTest t(op, axes_input_opset(op));
          t.input(x).attr("keepdims", keepdims);
          if (!axes.empty()) t.input(i64({static_cast<int64_t>(axes.size())}, axes));
          const Tensor got = t.run()[0];
          ASSERT_EQ(got.shape(), want.shape()) << what;
          // Products of hundreds of values span many magnitudes; compare them relatively.
          EXPECT_TRUE(all_close(got, want, 2e-4, 2e-4)) << what;
          OpTest old(op, 11);
          old.input(x).attr("keepdims", keepdims);
          if (!axes.empty()) old.attr("axes", axes);
          EXPECT_TRUE(all_close(old.run()[0], want, 2e-4, 2e-4)) << what << " (opset 11)";
        }
      }
    }
  }
}

TEST(Reduce, NoopWithEmptyAxes) {
  const Tensor x = f32({2, 2}, {1, -2, 3, -4});
  const Tensor empty_axes = i64({0}, {});
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .input(x)
                .input(empty_axes)
                .attr("noop_with_empty_axes", 1)
                .run()[0]
                .to_vector<float>(),
            x.to_vector<float>());
  // Each element reduced on its own: the square is still taken.
  EXPECT_EQ(OpTest("ReduceSumSquare", 18)
                .input(x)
                .attr("noop_with_empty_axes", 1)
                .run()[0]
                .to_vector<float>(),
            (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(OpTest("ReduceSum", 13).input(x).input(empty_axes).run()[0].to_vector<float>(),
            (std::vector<float>{-2}));
}

TEST(Reduce, EmptyReductionsGiveIdentities) {
  const Tensor x = f32({2, 0, 3}, {});
  const Tensor axes = i64({1}, {1});
  auto run = [&](const std::string& op) {
    return OpTest(op, 18).input(x).input(axes).attr("keepdims", 0).run()[0];
  };
  EXPECT_EQ(run("ReduceSum").to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(run("ReduceProd").to_vector<float>(), std::vector<float>(6, 1.0f));
  EXPECT_EQ(run("ReduceMax").to_vector<float>(), std::vector<float>(6, -kInf));
  EXPECT_EQ(run("ReduceMin").to_vector<float>(), std::vector<float>(6, kInf));
  EXPECT_EQ(run("ReduceLogSum").to_vector<float>(), std::vector<float>(6, -kInf));
  EXPECT_EQ(run("ReduceLogSumExp").to_vector<float>(), std::vector<float>(6, -kInf));
  EXPECT_EQ(run("ReduceL2").to_vector<float>(), std::vector<float>(6, 0.0f));
  // A zero-length kept axis gives an empty output.
  EXPECT_EQ(OpTest("ReduceSum", 13).input(x).input(i64({1}, {2})).run()[0].shape(),
            (Shape{2, 0, 1}));
}

TEST(Reduce, OtherTypes) {
  const Tensor xi = Tensor::from_data<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(OpTest("ReduceSum", 13).input(xi).input(i64({1}, {1})).run()[0].to_vector<int32_t>(),
            (std::vector<int32_t>{6, 15}));
  EXPECT_EQ(OpTest("ReduceMean", 18).input(xi).input(i64({1}, {0})).run()[0].to_vector<int32_t>(),
            (std::vector<int32_t>{2, 3, 4}));
  // The mean of many small integers does not wrap.
  const Tensor xs = Tensor::from_data<int8_t>({300}, std::vector<int8_t>(300, 100));
  EXPECT_EQ(OpTest("ReduceMean", 18).input(xs).run()[0].to_vector<int8_t>(),
            (std::vector<int8_t>{100}));
  const Tensor xu = Tensor::from_data<uint8_t>({3}, {7, 200, 3});
  EXPECT_EQ(OpTest("ReduceMax", 18).input(xu).run()[0].to_vector<uint8_t>(),
            (std::vector<uint8_t>{200}));
  const Tensor xb = Tensor::from_data<bool>({2, 2}, {true, false, false, false});
  EXPECT_EQ(OpTest("ReduceMax", 20).input(xb).input(i64({1}, {1})).run()[0].to_vector<bool>(),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(OpTest("ReduceMin", 20).input(xb).input(i64({1}, {1})).run()[0].to_vector<bool>(),
            (std::vector<bool>{false, false}));
  const Tensor xh = Tensor::from_data<Float16>({2}, {Float16(1.5f), Float16(2.0f)});
  EXPECT_EQ(static_cast<float>(OpTest("ReduceProd", 18).input(xh).run()[0].data<Float16>()[0]),
            3.0f);
  const Tensor xd = Tensor::from_data<double>({2}, {3.0, 4.0});
  EXPECT_EQ(OpTest("ReduceL2", 18).input(xd).run()[0].to_vector<double>(),
            (std::vector<double>{5.0}));
  // A scalar reduces to itself.
  EXPECT_EQ(OpTest("ReduceSum", 13).input(Tensor::scalar(2.5f)).run()[0].to_vector<float>(),
            (std::vector<float>{2.5f}));
}

TEST(Reduce, LogSumExpIsStable) {
  const Tensor x = f32({3}, {1000, 1000, -kInf});
  const float y = OpTest("ReduceLogSumExp", 18).input(x).run()[0].data<float>()[0];
  EXPECT_NEAR(y, 1000.0f + std::log(2.0f), 1e-3);
}

TEST(Reduce, BadInputsThrow) {
  const Tensor x = random_f32({2, 3}, 1);
  EXPECT_THROW(OpTest("ReduceSum", 13).input(x).input(i64({1}, {2})).run(), Error);
  EXPECT_THROW(OpTest("ReduceMax", 11).input(x).attr("axes", std::vector<int64_t>{-3}).run(),
               Error);
  EXPECT_THROW(OpTest("ReduceSum", 13).input(x).input(f32({1}, {0})).run(), Error);
  EXPECT_THROW(OpTest("ReduceSum", 13).input(Tensor::from_data<bool>({1}, {true})).run(), Error);
}

// --- ArgMax / ArgMin -----------------------------------------------------------------------

TEST(ArgMax, AgainstReferenceWithTies) {
  // Small integers make ties common.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(0, 3);
  const Shape shape{3, 4, 5};
  std::vector<float> v(60);
  for (float& x : v) x = static_cast<float>(dist(rng));
  const Tensor x = f32(shape, v);
  for (int is_max = 0; is_max < 2; ++is_max) {
    for (int64_t axis = -3; axis < 3; ++axis) {
      for (int last = 0; last < 2; ++last) {
        for (int keepdims = 0; keepdims < 2; ++keepdims) {
          const int64_t a = axis < 0 ? axis + 3 : axis;
          int64_t outer = 1, inner = 1;
          for (int64_t d = 0; d < a; ++d) outer *= shape[d];
          for (int64_t d = a + 1; d < 3; ++d) inner *= shape[d];
          const int64_t n = shape[a];
          std::vector<int64_t> want;
          for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < inner; ++i) {
              int64_t best = 0;
              for (int64_t k = 1; k < n; ++k) {
                const float c = v[(o * n + k) * inner + i], b = v[(o * n + best) * inner + i];
                const bool better = is_max ? (last ? c >= b : c > b) : (last ? c <= b : c < b);
                if (better) best = k;
              }
              want.push_back(best);
            }
          }
          Shape out_shape = shape;
          if (keepdims) {
            out_shape[a] = 1;
          } else {
            out_shape.erase(a);
          }
          const Tensor got = OpTest(is_max ? "ArgMax" : "ArgMin")
                                 .input(x)
                                 .attr("axis", axis)
                                 .attr("keepdims", keepdims)
                                 .attr("select_last_index", last)
                                 .run()[0];
          EXPECT_EQ(got.shape(), out_shape);
          EXPECT_EQ(got.to_vector<int64_t>(), want)
              << "max=" << is_max << " axis=" << axis << " last=" << last;
        }
      }
    }
  }
}

TEST(ArgMax, TypesAndErrors) {
  const Tensor xi = Tensor::from_data<int8_t>({4}, {3, -1, 7, 7});
  EXPECT_EQ(OpTest("ArgMax").input(xi).attr("keepdims", 0).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(OpTest("ArgMin").input(xi).run()[0].to_vector<int64_t>(), (std::vector<int64_t>{1}));
  EXPECT_THROW(OpTest("ArgMax").input(f32({2, 0}, {})).attr("axis", 1).run(), Error);
  EXPECT_THROW(OpTest("ArgMax").input(f32({2, 2}, {1, 2, 3, 4})).attr("axis", 2).run(), Error);
  // An empty non-reduced axis is fine: an empty result.
  EXPECT_EQ(OpTest("ArgMax").input(f32({0, 2}, {})).attr("axis", 1).run()[0].shape(),
            (Shape{0, 1}));
}

}  // namespace
}  // namespace kiln
