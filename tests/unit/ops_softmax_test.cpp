// Softmax, LogSoftmax and Hardmax against a double-precision reference, in both the pre-13
// (flatten to 2-D at axis) and the current (single axis) semantics.
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
using testing::OpTest;

Tensor random_f32(const Shape& shape, uint32_t seed, float scale = 3.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return f32(shape, v);
}

// kind: 0 softmax, 1 log-softmax, 2 hardmax, over [outer, n, inner].
std::vector<float> reference(const std::vector<float>& x, int64_t outer, int64_t n, int64_t inner,
                             int kind) {
  std::vector<float> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return static_cast<size_t>((o * n + k) * inner + i); };
      double max = -std::numeric_limits<double>::infinity();
      int64_t arg = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (x[at(k)] > max) {
          max = x[at(k)];
          arg = k;
        }
      }
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(x[at(k)] - max);
      for (int64_t k = 0; k < n; ++k) {
        const double v = kind == 0   ? std::exp(x[at(k)] - max) / sum
                         : kind == 1 ? x[at(k)] - max - std::log(sum)
                                     : (k == arg ? 1.0 : 0.0);
        y[at(k)] = static_cast<float>(v);
      }
    }
  }
  return y;
}

const char* kNames[] = {"Softmax", "LogSoftmax", "Hardmax"};

TEST(Softmax, BothSemanticsAgainstReference) {
  const std::vector<Shape> shapes = {{7}, {3, 5}, {2, 3, 4}, {2, 70, 3}, {4, 1000}, {3, 17, 130}};
  uint32_t seed = 1;
  for (int kind = 0; kind < 3; ++kind) {
    for (const Shape& shape : shapes) {
      const Tensor x = random_f32(shape, seed++);
      const std::vector<float> xv = x.to_vector<float>();
      const int64_t rank = static_cast<int64_t>(shape.size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < a; ++d) outer *= shape[d];
        for (int64_t d = a + 1; d < rank; ++d) inner *= shape[d];
        const std::string what =
            std::string(kNames[kind]) + " " + shape.to_string() + " axis=" + std::to_string(axis);
        // Opset 13: one axis.
        const Tensor want13 = f32(shape, reference(xv, outer, shape[a], inner, kind));
        const Tensor got13 = OpTest(kNames[kind], 13).input(x).attr("axis", axis).run()[0];
        EXPECT_TRUE(all_close(got13, want13, 1e-5, 1e-6)) << what << " opset 13";
        // Opset 11: flattened at axis.
        const Tensor want11 = f32(shape, reference(xv, outer, shape[a] * inner, 1, kind));
        const Tensor got11 = OpTest(kNames[kind], 11).input(x).attr("axis", axis).run()[0];
        EXPECT_TRUE(all_close(got11, want11, 1e-5, 1e-6)) << what << " opset 11";
      }
    }
  }
}

TEST(Softmax, DefaultAxes) {
  const Tensor x = random_f32({2, 3, 4}, 9);
  const std::vector<float> xv = x.to_vector<float>();
  // Opset 13 defaults to the last axis, older opsets flatten at 1.
  EXPECT_TRUE(all_close(OpTest("Softmax", 13).input(x).run()[0],
                        f32({2, 3, 4}, reference(xv, 6, 4, 1, 0)), 1e-5, 1e-6));
  EXPECT_TRUE(all_close(OpTest("Softmax", 11).input(x).run()[0],
                        f32({2, 3, 4}, reference(xv, 2, 12, 1, 0)), 1e-5, 1e-6));
}

TEST(Softmax, LargeAndInfiniteInputsStayFinite) {
  const Tensor x = f32({1, 4}, {1000, 999, -std::numeric_limits<float>::infinity(), 1000});
  const std::vector<float> s = OpTest("Softmax").input(x).run()[0].to_vector<float>();
  const double e = std::exp(-1.0), sum = 2 + e;
  EXPECT_NEAR(s[0], 1 / sum, 1e-6);
  EXPECT_NEAR(s[1], e / sum, 1e-6);
  EXPECT_EQ(s[2], 0.0f);
  const std::vector<float> l =
      OpTest("LogSoftmax").input(f32({2}, {0, -200})).run()[0].to_vector<float>();
  // exp(-200) underflows in float; the log-softmax must not.
  EXPECT_NEAR(l[1], -200.0f, 1e-3);
}

TEST(Softmax, OtherTypes) {
  const Tensor xd = Tensor::from_data<double>({3}, {1, 2, 3});
  const std::vector<double> yd = OpTest("Softmax").input(xd).run()[0].to_vector<double>();
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  EXPECT_NEAR(yd[2], std::exp(3.0) / sum, 1e-12);
  const Tensor xh = Tensor::from_data<Float16>({2}, {Float16(0.0f), Float16(0.0f)});
  EXPECT_EQ(static_cast<float>(OpTest("Softmax").input(xh).run()[0].data<Float16>()[1]), 0.5f);
  const Tensor hm = Tensor::from_data<Float16>({3}, {Float16(1.0f), Float16(3.0f), Float16(3.0f)});
  const Tensor h = OpTest("Hardmax").input(hm).run()[0];
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[1]), 1.0f);  // first of the tied maxima
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[2]), 0.0f);
  // Empty tensors give empty results.
  EXPECT_EQ(OpTest("Softmax").input(f32({0, 3}, {})).run()[0].shape(), (Shape{0, 3}));
}

TEST(Softmax, BadInputsThrow) {
  EXPECT_THROW(OpTest("Softmax").input(f32({2, 2}, {1, 2, 3, 4})).attr("axis", 2).run(), Error);
  EXPECT_THROW(OpTest("LogSoftmax").input(f32({2, 2}, {1, 2, 3, 4})).attr("axis", -3).run(), Error);
  EXPECT_THROW(OpTest("Softmax").input(Tensor::from_data<int32_t>({2}, {1, 2})).run(), Error);
}

}  // namespace
}  // namespace kiln
