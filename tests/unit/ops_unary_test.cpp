// Tests of the element-wise unary math ops against hand-computed values and the C library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kiln/error.h"
#include "test_util.h"

namespace kiln {
namespace {

using testing::f32;
using testing::OpTest;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor run1(const std::string& op, const Tensor& x, int opset = 22) {
  auto out = OpTest(op, opset).input(x).run();
  EXPECT_EQ(out.size(), 1u);
  return out[0];
}

// Float results equal expected within a relative tolerance, NaN matching NaN.
void expect_floats(const Tensor& t, const std::vector<float>& expected, float rtol = 1e-6f) {
  ASSERT_EQ(t.dtype(), DataType::Float32);
  ASSERT_EQ(t.element_count(), static_cast<int64_t>(expected.size()));
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(p[i])) << "element " << i << " is " << p[i];
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(p[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(p[i], expected[i], rtol * std::fabs(expected[i]) + 1e-30f) << "element " << i;
    }
  }
}

TEST(UnaryOpsTest, AbsNegSignOnFloats) {
  Tensor x = f32({5}, {-2.5f, -0.0f, 0.0f, 3.0f, kNaN});
  expect_floats(run1("Abs", x, 13), {2.5f, 0.0f, 0.0f, 3.0f, kNaN});
  expect_floats(run1("Neg", x, 13), {2.5f, 0.0f, -0.0f, -3.0f, kNaN});
  expect_floats(run1("Sign", x, 13), {-1.0f, 0.0f, 0.0f, 1.0f, kNaN});
}

TEST(UnaryOpsTest, AbsNegSignOnIntegers) {
  const int32_t lo = std::numeric_limits<int32_t>::min();
  Tensor x = Tensor::from_data<int32_t>({4}, {-7, 0, 5, lo});
  // The most negative value wraps like two's complement hardware does.
  EXPECT_EQ(run1("Abs", x, 13).to_vector<int32_t>(), (std::vector<int32_t>{7, 0, 5, lo}));
  EXPECT_EQ(run1("Neg", x, 13).to_vector<int32_t>(), (std::vector<int32_t>{7, 0, -5, lo}));
  EXPECT_EQ(run1("Sign", x, 13).to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 1, -1}));

  Tensor u = Tensor::from_data<uint8_t>({3}, {0, 7, 255});
  EXPECT_EQ(run1("Abs", u, 13).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 7, 255}));
  EXPECT_EQ(run1("Sign", u, 13).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 1}));
  Tensor i8 = Tensor::from_data<int8_t>({2}, {-128, -3});
  EXPECT_EQ(run1("Abs", i8, 13).to_vector<int8_t>(), (std::vector<int8_t>{-128, 3}));
  // Neg is not defined on unsigned types.
  EXPECT_THROW(run1("Neg", u, 13), Error);
}

TEST(UnaryOpsTest, RoundingOps) {
  Tensor x = f32({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, 7.0f});
  expect_floats(run1("Round", x), {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 2.0f, -3.0f, 7.0f});
  expect_floats(run1("Floor", x, 13), {0.0f, 1.0f, 2.0f, -1.0f, -2.0f, 2.0f, -3.0f, 7.0f});
  expect_floats(run1("Ceil", x, 13), {1.0f, 2.0f, 3.0f, -0.0f, -1.0f, 3.0f, -2.0f, 7.0f});
}

TEST(UnaryOpsTest, SqrtReciprocal) {
  Tensor x = f32({4}, {4.0f, 0.0f, -1.0f, 0.25f});
  expect_floats(run1("Sqrt", x, 13), {2.0f, 0.0f, kNaN, 0.5f});
  expect_floats(run1("Reciprocal", x, 13), {0.25f, kInf, -1.0f, 4.0f});
}

// A large input (so the work is split over threads and the vector path runs) with special
// values near the start, in the middle and in the tail that does not fill a vector.
std::vector<float> sweep(float lo, float hi, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / (n - 1);
  return v;
}

TEST(UnaryOpsTest, ExpMatchesLibmIncludingSpecialValues) {
  std::vector<float> v = sweep(-110.0f, 95.0f, 100003);
  const std::vector<float> specials = {0.0f,   -0.0f,  kInf,   -kInf,   kNaN,
                                       88.72f, 88.73f, -87.5f, -103.0f, 1e-8f};
  for (size_t i = 0; i < specials.size(); ++i) {
    v[i] = specials[i];
    v[50000 + i] = specials[i];
    v[v.size() - 1 - i] = specials[i];
  }
  std::vector<float> expected(v.size());
  for (size_t i = 0; i < v.size(); ++i) expected[i] = std::exp(v[i]);
  Tensor y = run1("Exp", f32({static_cast<int64_t>(v.size())}, v), 13);
  // Results below the normal range lose relative precision; compare those absolutely.
  const float* p = y.data<float>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(expected[i])) {
      ASSERT_TRUE(std::isnan(p[i])) << "exp(" << v[i] << ")";
    } else if (std::isinf(expected[i])) {
      ASSERT_EQ(p[i], expected[i]) << "exp(" << v[i] << ")";
    } else {
      ASSERT_NEAR(p[i], expected[i], 4e-7f * expected[i] + 1e-37f) << "exp(" << v[i] << ")";
    }
  }
}

TEST(UnaryOpsTest, ErfMatchesLibmIncludingSpecialValues) {
  // float32 takes the vectorised path: both of its ranges (below and above |x| = 0.5), the
  // saturation beyond 4, and the special values.
  std::vector<float> v = sweep(-7.0f, 7.0f, 140001);
  const std::vector<float> specials = {0.0f, -0.0f, kInf, -kInf, kNaN, 1e-8f, -1e-30f, 0.5f, 4.0f};
  for (size_t i = 0; i < specials.size(); ++i) {
    v[i] = specials[i];
    v[v.size() - 1 - i] = specials[i];
  }
  Tensor y = run1("Erf", f32({static_cast<int64_t>(v.size())}, v), 13);
  const float* p = y.data<float>();
  for (size_t i = 0; i < v.size(); ++i) {
    const double expected = std::erf(static_cast<double>(v[i]));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(p[i])) << "erf(" << v[i] << ")";
    } else if (std::fabs(v[i]) < 0.5f) {
      // Small arguments keep their relative precision (erf(1e-8) is not rounded to 0).
      ASSERT_NEAR(p[i], expected, 3e-7 * std::fabs(expected)) << "erf(" << v[i] << ")";
      ASSERT_EQ(std::signbit(p[i]), std::signbit(v[i])) << "erf(" << v[i] << ")";
    } else {
      ASSERT_NEAR(p[i], expected, 2e-7) << "erf(" << v[i] << ")";
    }
  }
}

TEST(UnaryOpsTest, LogMatchesLibmIncludingSpecialValues) {
  std::vector<float> v = sweep(-1.0f, 1e6f, 70001);
  const std::vector<float> specials = {0.0f,
                                       -0.0f,
                                       kInf,
                                       -kInf,
                                       kNaN,
                                       1.0f,
                                       1e-40f /* subnormal */,
                                       std::numeric_limits<float>::max()};
  for (size_t i = 0; i < specials.size(); ++i) {
    v[i] = specials[i];
    v[v.size() - 1 - i] = specials[i];
  }
  std::vector<float> expected(v.size());
  for (size_t i = 0; i < v.size(); ++i) expected[i] = std::log(v[i]);
  Tensor y = run1("Log", f32({static_cast<int64_t>(v.size())}, v), 13);
  const float* p = y.data<float>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(expected[i])) {
      ASSERT_TRUE(std::isnan(p[i])) << "log(" << v[i] << ")";
    } else if (std::isinf(expected[i])) {
      ASSERT_EQ(p[i], expected[i]) << "log(" << v[i] << ")";
    } else {
      ASSERT_NEAR(p[i], expected[i], 1e-6f * std::fabs(expected[i]) + 1e-7f)
          << "log(" << v[i] << ")";
    }
  }
}

TEST(UnaryOpsTest, TrigonometricAndHyperbolic) {
  const std::vector<float> v = {-0.9f, -0.3f, 0.0f, 0.2f, 0.7f};
  struct Case {
    const char* op;
    double (*f)(double);
  };
  const Case cases[] = {{"Sin", std::sin},     {"Cos", std::cos},   {"Tan", std::tan},
                        {"Asin", std::asin},   {"Acos", std::acos}, {"Atan", std::atan},
                        {"Sinh", std::sinh},   {"Cosh", std::cosh}, {"Asinh", std::asinh},
                        {"Atanh", std::atanh}, {"Erf", std::erf}};
  for (const Case& c : cases) {
    std::vector<float> expected;
    for (float x : v) expected.push_back(static_cast<float>(c.f(x)));
    SCOPED_TRACE(c.op);
    expect_floats(run1(c.op, f32({5}, v)), expected, 1e-6f);
  }
  expect_floats(run1("Acosh", f32({3}, {1.0f, 2.0f, 0.5f})),
                {0.0f, static_cast<float>(std::acosh(2.0)), kNaN});
}

TEST(UnaryOpsTest, DoubleAndHalfPrecision) {
  Tensor d = Tensor::from_data<double>({2}, {1.0, -2.0});
  auto y = run1("Exp", d, 13).to_vector<double>();
  EXPECT_DOUBLE_EQ(y[0], std::exp(1.0));
  EXPECT_DOUBLE_EQ(y[1], std::exp(-2.0));

  Tensor h = Tensor::from_data<Float16>({3}, {Float16(0.25f), Float16(4.0f), Float16(-1.0f)});
  Tensor s = run1("Sqrt", h, 13);
  ASSERT_EQ(s.dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(s.data<Float16>()[0]), 0.5f);
  EXPECT_EQ(static_cast<float>(s.data<Float16>()[1]), 2.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(s.data<Float16>()[2])));

  Tensor b = Tensor::from_data<BFloat16>({2}, {BFloat16(2.5f), BFloat16(-2.5f)});
  Tensor r = run1("Round", b);
  ASSERT_EQ(r.dtype(), DataType::BFloat16);
  EXPECT_EQ(static_cast<float>(r.data<BFloat16>()[0]), 2.0f);
  EXPECT_EQ(static_cast<float>(r.data<BFloat16>()[1]), -2.0f);
}

TEST(UnaryOpsTest, ErfOnIntegersTruncates) {
  Tensor x = Tensor::from_data<int32_t>({3}, {-3, 0, 2});
  EXPECT_EQ(run1("Erf", x, 13).to_vector<int32_t>(), (std::vector<int32_t>{0, 0, 0}));
}

TEST(UnaryOpsTest, IsNaNAndIsInf) {
  Tensor x = f32({5}, {1.0f, kNaN, kInf, -kInf, -0.0f});
  EXPECT_EQ(run1("IsNaN", x, 20).to_vector<bool>(),
            (std::vector<bool>{false, true, false, false, false}));
  EXPECT_EQ(run1("IsInf", x, 20).to_vector<bool>(),
            (std::vector<bool>{false, false, true, true, false}));
  auto pos = OpTest("IsInf", 20).input(x).attr("detect_negative", 0).run()[0];
  EXPECT_EQ(pos.to_vector<bool>(), (std::vector<bool>{false, false, true, false, false}));
  auto neg = OpTest("IsInf", 20).input(x).attr("detect_positive", 0).run()[0];
  EXPECT_EQ(neg.to_vector<bool>(), (std::vector<bool>{false, false, false, true, false}));

  Tensor h = Tensor::from_data<Float16>({2}, {Float16(kInf), Float16(kNaN)});
  EXPECT_EQ(run1("IsInf", h, 20).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(run1("IsNaN", h, 20).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_THROW(run1("IsNaN", Tensor::from_data<int32_t>({1}, {1}), 20), Error);
}

TEST(UnaryOpsTest, NotAndBitwiseNot) {
  Tensor b = Tensor::from_data<bool>({2, 2}, {true, false, false, true});
  Tensor nb = run1("Not", b, 1);
  EXPECT_EQ(nb.shape(), (Shape{2, 2}));
  EXPECT_EQ(nb.to_vector<bool>(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(run1("BitwiseNot", Tensor::from_data<uint8_t>({2}, {0, 0x0F}), 18).to_vector<uint8_t>(),
            (std::vector<uint8_t>{0xFF, 0xF0}));
  EXPECT_EQ(run1("BitwiseNot", Tensor::from_data<int32_t>({2}, {0, -5}), 18).to_vector<int32_t>(),
            (std::vector<int32_t>{-1, 4}));
  EXPECT_THROW(run1("Not", f32({1}, {1.0f}), 1), Error);
  EXPECT_THROW(run1("BitwiseNot", f32({1}, {1.0f}), 18), Error);
}

TEST(UnaryOpsTest, ScalarsAndEmptyTensors) {
  Tensor s = run1("Neg", Tensor::scalar<float>(3.0f), 13);
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(s.data<float>()[0], -3.0f);
  Tensor e = run1("Exp", f32({0, 3}, {}), 13);
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.element_count(), 0);
}

TEST(UnaryOpsTest, FloatOnlyOpsRejectIntegers) {
  Tensor x = Tensor::from_data<int32_t>({1}, {1});
  for (const char* op : {"Exp", "Log", "Sqrt", "Sin", "Floor", "Round", "Reciprocal"}) {
    EXPECT_THROW(run1(op, x, 13), Error) << op;
  }
}

}  // namespace
}  // namespace kiln
