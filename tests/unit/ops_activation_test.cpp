// Tests of the activation ops, Clip and Where against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::f32;
using testing::OpTest;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

void expect_floats(const Tensor& t, const std::vector<float>& expected, float tol = 1e-6f) {
  ASSERT_EQ(t.dtype(), DataType::Float32);
  ASSERT_EQ(t.element_count(), static_cast<int64_t>(expected.size()));
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(p[i])) << "element " << i << " is " << p[i];
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(p[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(p[i], expected[i], tol * (1.0f + std::fabs(expected[i]))) << "element " << i;
    }
  }
}

Tensor run1(OpTest test) { return test.run()[0]; }

const std::vector<float> kX = {-3.0f, -0.5f, 0.0f, 0.5f, 2.0f};
Tensor x5() { return f32({5}, kX); }

std::vector<float> apply(float (*f)(float)) {
  std::vector<float> out;
  for (float v : kX) out.push_back(f(v));
  return out;
}

TEST(ActivationOpsTest, Relu) {
  expect_floats(run1(OpTest("Relu", 14).input(f32({4}, {-1.0f, 0.0f, 2.0f, kNaN}))),
                {0.0f, 0.0f, 2.0f, kNaN});
  auto i = run1(OpTest("Relu", 14).input(Tensor::from_data<int8_t>({3}, {-5, 0, 7})));
  EXPECT_EQ(i.to_vector<int8_t>(), (std::vector<int8_t>{0, 0, 7}));
  EXPECT_THROW(run1(OpTest("Relu", 14).input(Tensor::from_data<uint8_t>({1}, {1}))), Error);
}

TEST(ActivationOpsTest, SigmoidTanhLargeInputsUseVectorPath) {
  std::vector<float> v(40001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = -100.0f + 200.0f * i / (v.size() - 1);
  v[7] = kNaN;
  v[8] = kInf;
  v[9] = -kInf;
  v[v.size() - 2] = kNaN;
  v[v.size() - 1] = 1e-7f;
  std::vector<float> sig, th;
  for (float x : v) {
    sig.push_back(static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))));
    th.push_back(std::tanh(x));
  }
  Tensor x = f32({static_cast<int64_t>(v.size())}, v);
  expect_floats(run1(OpTest("Sigmoid", 13).input(x)), sig, 1e-6f);
  expect_floats(run1(OpTest("Tanh", 13).input(x)), th, 1e-6f);
}

TEST(ActivationOpsTest, SimpleFloatActivations) {
  expect_floats(run1(OpTest("Softplus").input(x5())),
                apply([](float x) { return std::log1p(std::exp(x)); }));
  expect_floats(run1(OpTest("Softsign").input(x5())),
                apply([](float x) { return x / (1 + std::fabs(x)); }));
  expect_floats(run1(OpTest("Mish").input(x5())),
                apply([](float x) { return x * std::tanh(std::log1p(std::exp(x))); }));
  expect_floats(run1(OpTest("HardSwish").input(f32({4}, {-4.0f, -1.0f, 1.0f, 4.0f}))),
                {0.0f, -1.0f / 3.0f, 2.0f / 3.0f, 4.0f});
  // Softplus does not overflow for large inputs.
  expect_floats(run1(OpTest("Softplus").input(f32({2}, {100.0f, -100.0f}))), {100.0f, 0.0f});
}

TEST(ActivationOpsTest, AttributeActivations) {
  expect_floats(run1(OpTest("LeakyRelu", 16).input(x5())), {-0.03f, -0.005f, 0.0f, 0.5f, 2.0f});
  expect_floats(run1(OpTest("LeakyRelu", 16).input(x5()).attr("alpha", 0.5f)),
                {-1.5f, -0.25f, 0.0f, 0.5f, 2.0f});
  expect_floats(run1(OpTest("Elu").input(x5()).attr("alpha", 2.0f)),
                apply([](float x) { return x < 0 ? 2.0f * (std::exp(x) - 1) : x; }));
  expect_floats(run1(OpTest("Selu").input(x5())), apply([](float x) {
                  const float a = 1.67326319217681884765625f, g = 1.05070102214813232421875f;
                  return x > 0 ? g * x : g * (a * std::exp(x) - a);
                }));
  expect_floats(run1(OpTest("Celu", 12).input(x5()).attr("alpha", 2.0f)), apply([](float x) {
                  return std::max(0.0f, x) + std::min(0.0f, 2.0f * (std::exp(x / 2.0f) - 1));
                }));
  EXPECT_THROW(run1(OpTest("Celu", 12).input(x5()).attr("alpha", 0.0f)), Error);
  expect_floats(run1(OpTest("HardSigmoid").input(x5())),
                apply([](float x) { return std::max(0.0f, std::min(1.0f, 0.2f * x + 0.5f)); }));
  expect_floats(run1(OpTest("HardSigmoid").input(x5()).attr("alpha", 1.0f).attr("beta", 0.0f)),
                {0.0f, 0.0f, 0.0f, 0.5f, 1.0f});
  expect_floats(run1(OpTest("ThresholdedRelu").input(x5()).attr("alpha", 0.5f)),
                {0.0f, 0.0f, 0.0f, 0.0f, 2.0f});
  expect_floats(run1(OpTest("ThresholdedRelu").input(x5())), {0.0f, 0.0f, 0.0f, 0.0f, 2.0f});
  expect_floats(run1(OpTest("Swish", 24).input(x5()).attr("alpha", 2.0f)),
                apply([](float x) { return x / (1 + std::exp(-2.0f * x)); }));
}

TEST(ActivationOpsTest, Shrink) {
  expect_floats(run1(OpTest("Shrink", 9).input(x5()).attr("lambd", 1.0f).attr("bias", 0.5f)),
                {-2.5f, 0.0f, 0.0f, 0.0f, 1.5f});
  auto i = run1(OpTest("Shrink", 9)
                    .input(Tensor::from_data<int32_t>({4}, {-5, -1, 1, 5}))
                    .attr("lambd", 1.5f)
                    .attr("bias", 1.0f));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{-4, 0, 0, 4}));
}

TEST(ActivationOpsTest, Gelu) {
  expect_floats(run1(OpTest("Gelu", 20).input(x5())),
                apply([](float x) { return 0.5f * x * (1 + std::erf(x / std::sqrt(2.0f))); }));
  expect_floats(
      run1(OpTest("Gelu", 20).input(x5()).attr("approximate", "tanh")), apply([](float x) {
        return 0.5f * x *
               (1 + std::tanh(std::sqrt(2.0f / 3.14159265f) * (x + 0.044715f * x * x * x)));
      }));
  EXPECT_THROW(run1(OpTest("Gelu", 20).input(x5()).attr("approximate", "fast")), Error);
}

TEST(ActivationOpsTest, HalfAndDoublePrecision) {
  Tensor h = Tensor::from_data<Float16>({2}, {Float16(-2.0f), Float16(0.0f)});
  Tensor y = run1(OpTest("Sigmoid", 13).input(h));
  ASSERT_EQ(y.dtype(), DataType::Float16);
  EXPECT_NEAR(static_cast<float>(y.data<Float16>()[0]), 0.1192f, 1e-3f);
  EXPECT_EQ(static_cast<float>(y.data<Float16>()[1]), 0.5f);
  Tensor d = Tensor::from_data<double>({1}, {-1.0});
  Tensor e = run1(OpTest("Elu").input(d));
  EXPECT_DOUBLE_EQ(e.data<double>()[0], std::expm1(-1.0));
  EXPECT_THROW(run1(OpTest("Sigmoid", 13).input(Tensor::from_data<int32_t>({1}, {1}))), Error);
}

TEST(ActivationOpsTest, PReluBroadcastsSlopeToX) {
  Tensor x = f32({2, 3}, {-1.0f, 2.0f, -3.0f, -4.0f, 5.0f, -6.0f});
  expect_floats(run1(OpTest("PRelu", 16).input(x).input(f32({3}, {0.1f, 0.2f, 0.3f}))),
                {-0.1f, 2.0f, -0.9f, -0.4f, 5.0f, -1.8f});
  expect_floats(run1(OpTest("PRelu", 16).input(x).input(f32({2, 1}, {0.5f, 2.0f}))),
                {-0.5f, 2.0f, -1.5f, -8.0f, 5.0f, -12.0f});
  expect_floats(run1(OpTest("PRelu", 16).input(x).input(f32({1}, {0.5f}))),
                {-0.5f, 2.0f, -1.5f, -2.0f, 5.0f, -3.0f});
  expect_floats(run1(OpTest("PRelu", 16).input(x).input(f32({2, 3}, {1, 1, 1, 2, 2, 2}))),
                {-1.0f, 2.0f, -3.0f, -8.0f, 5.0f, -12.0f});
  // A slope larger than X would broadcast X: not allowed (unidirectional).
  EXPECT_THROW(run1(OpTest("PRelu", 16).input(f32({3}, {1, 2, 3})).input(x)), Error);
  EXPECT_THROW(run1(OpTest("PRelu", 16).input(x).input(f32({2}, {1, 2}))), Error);
  auto i = run1(OpTest("PRelu", 16)
                    .input(Tensor::from_data<int64_t>({2}, {-3, 3}))
                    .input(Tensor::from_data<int64_t>({1}, {2})));
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{-6, 3}));
}

TEST(ActivationOpsTest, PReluOpset6PerChannelSlope) {
  // Old exporters wrote a per-channel slope as [C]; it applies along axis 1.
  Tensor x = f32({1, 2, 2}, {-1.0f, -2.0f, -1.0f, 3.0f});
  expect_floats(run1(OpTest("PRelu", 6).input(x).input(f32({2}, {0.5f, 2.0f}))),
                {-0.5f, -1.0f, -2.0f, 3.0f});
}

TEST(ActivationOpsTest, ClipWithInputs) {
  Tensor x = f32({5}, {-5.0f, -1.0f, 0.0f, 1.0f, kNaN});
  expect_floats(run1(OpTest("Clip", 13)
                         .input(x)
                         .input(Tensor::scalar<float>(-2.0f))
                         .input(Tensor::scalar(0.5f))),
                {-2.0f, -1.0f, 0.0f, 0.5f, kNaN});
  // Only max given (min absent).
  expect_floats(run1(OpTest("Clip", 13).input(x).input(Tensor()).input(Tensor::scalar(0.5f))),
                {-5.0f, -1.0f, 0.0f, 0.5f, kNaN});
  // No bounds: identity, infinities too.
  expect_floats(run1(OpTest("Clip", 13).input(f32({2}, {kInf, -kInf}))), {kInf, -kInf});
  // min > max: everything becomes max.
  expect_floats(
      run1(OpTest("Clip", 13).input(x).input(Tensor::scalar(2.0f)).input(Tensor::scalar(1.0f))),
      {1.0f, 1.0f, 1.0f, 1.0f, kNaN});
  // Bounds as initializers.
  expect_floats(run1(OpTest("Clip", 13)
                         .input(x)
                         .input(Tensor::scalar(-1.0f))
                         .input(Tensor::scalar(1.0f))
                         .constant_input(1)
                         .constant_input(2)),
                {-1.0f, -1.0f, 0.0f, 1.0f, kNaN});
}

TEST(ActivationOpsTest, ClipIntegersAndErrors) {
  Tensor x = Tensor::from_data<int8_t>({4}, {-128, -3, 5, 127});
  auto y = run1(OpTest("Clip", 13).input(x).input(Tensor::scalar<int8_t>(-4)).input(Tensor()));
  EXPECT_EQ(y.to_vector<int8_t>(), (std::vector<int8_t>{-4, -3, 5, 127}));
  auto u = run1(OpTest("Clip", 13)
                    .input(Tensor::from_data<uint64_t>({2}, {1, 1000}))
                    .input(Tensor())
                    .input(Tensor::scalar<uint64_t>(10)));
  EXPECT_EQ(u.to_vector<uint64_t>(), (std::vector<uint64_t>{1, 10}));
  // Bound of another type, or not a scalar.
  EXPECT_THROW(run1(OpTest("Clip", 13).input(x).input(Tensor::scalar(1.0f))), Error);
  EXPECT_THROW(run1(OpTest("Clip", 13).input(f32({1}, {1})).input(f32({2}, {0, 1}))), Error);
}

TEST(ActivationOpsTest, ClipOpset6Attributes) {
  Tensor x = f32({4}, {-5.0f, 0.0f, 5.0f, kInf});
  expect_floats(run1(OpTest("Clip", 6).input(x).attr("min", -1.0f).attr("max", 2.0f)),
                {-1.0f, 0.0f, 2.0f, 2.0f});
  // Defaults: the float range.
  expect_floats(run1(OpTest("Clip", 6).input(x)),
                {-5.0f, 0.0f, 5.0f, std::numeric_limits<float>::max()});
}

TEST(ActivationOpsTest, WhereBroadcastsThreeInputs) {
  Tensor cond = Tensor::from_data<bool>({2, 1}, {true, false});
  Tensor x = f32({1, 3}, {1.0f, 2.0f, 3.0f});
  Tensor y = Tensor::scalar(-1.0f);
  Tensor out = run1(OpTest("Where", 16).input(cond).input(x).input(y));
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  expect_floats(out, {1.0f, 2.0f, 3.0f, -1.0f, -1.0f, -1.0f});

  Tensor c2 = Tensor::from_data<bool>({3}, {true, false, true});
  auto i = run1(OpTest("Where", 16)
                    .input(c2)
                    .input(Tensor::from_data<int64_t>({3}, {1, 2, 3}))
                    .input(Tensor::from_data<int64_t>({3}, {7, 8, 9})));
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 8, 3}));

  auto s = run1(OpTest("Where", 16)
                    .input(c2)
                    .input(Tensor::from_data<std::string>({1}, {"yes"}))
                    .input(Tensor::from_data<std::string>({3}, {"a", "b", "c"})));
  EXPECT_EQ(s.to_vector<std::string>(), (std::vector<std::string>{"yes", "b", "yes"}));

  auto scalar = run1(OpTest("Where", 16)
                         .input(Tensor::scalar(false))
                         .input(Tensor::scalar(1.0f))
                         .input(Tensor::scalar(2.0f)));
  EXPECT_EQ(scalar.shape(), Shape{});
  EXPECT_EQ(scalar.data<float>()[0], 2.0f);

  auto empty = run1(OpTest("Where", 16)
                        .input(Tensor::from_data<bool>({0, 3}, {}))
                        .input(f32({1, 3}, {1, 2, 3}))
                        .input(f32({1}, {0})));
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
}

TEST(ActivationOpsTest, WhereLargeBroadcastMatchesReference) {
  // Big enough to be split over threads: cond [64, 1, 33], x [1, 40, 33], y [40, 1].
  const int64_t a = 64, b = 40, c = 33;
  std::vector<bool> cv(a * c);
  std::vector<float> xv(b * c), yv(b);
  for (size_t i = 0; i < cv.size(); ++i) cv[i] = (i * 7) % 3 == 0;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i);
  for (size_t i = 0; i < yv.size(); ++i) yv[i] = -static_cast<float>(i);
  Tensor cond = Tensor::zeros(DataType::Bool, {a, 1, c});
  for (size_t i = 0; i < cv.size(); ++i) cond.mutable_data<bool>()[i] = cv[i];
  Tensor out =
      run1(OpTest("Where", 16).input(cond).input(f32({1, b, c}, xv)).input(f32({b, 1}, yv)));
  ASSERT_EQ(out.shape(), (Shape{a, b, c}));
  const float* p = out.data<float>();
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) {
        const float expected = cv[i * c + k] ? xv[j * c + k] : yv[j];
        ASSERT_EQ(p[(i * b + j) * c + k], expected) << i << "," << j << "," << k;
      }
}

TEST(ActivationOpsTest, WhereErrors) {
  Tensor x = f32({2}, {1, 2});
  EXPECT_THROW(run1(OpTest("Where", 16).input(f32({2}, {1, 0})).input(x).input(x)), Error);
  EXPECT_THROW(run1(OpTest("Where", 16)
                        .input(Tensor::from_data<bool>({2}, {true, false}))
                        .input(x)
                        .input(Tensor::from_data<int32_t>({2}, {1, 2}))),
               Error);
  EXPECT_THROW(run1(OpTest("Where", 16)
                        .input(Tensor::from_data<bool>({3}, {true, false, true}))
                        .input(x)
                        .input(x)),
               Error);
}

}  // namespace
}  // namespace kiln
