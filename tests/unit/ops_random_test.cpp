// Tests of the random ops. Their values are not specified, so these check shapes, types,
// determinism under a seed, and sample statistics against the distribution's moments (with
// bounds several standard errors wide, fixed seeds keeping them reproducible).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

struct Moments {
  double mean = 0, variance = 0;
};

template <class T>
Moments moments_of(const Tensor& t) {
  const T* p = t.data<T>();
  const int64_t n = t.element_count();
  Moments m;
  for (int64_t i = 0; i < n; ++i) m.mean += static_cast<double>(p[i]);
  m.mean /= static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) {
    m.variance += (static_cast<double>(p[i]) - m.mean) * (static_cast<double>(p[i]) - m.mean);
  }
  m.variance /= static_cast<double>(n);
  return m;
}

constexpr int64_t kSamples = 20000;

// --- RandomUniform / RandomNormal ------------------------------------------------------------

TEST(RandomUniform, RangeAndMoments) {
  auto out = OpTest("RandomUniform", 22)
                 .attr("shape", std::vector<int64_t>{kSamples})
                 .attr("low", -2.0f)
                 .attr("high", 3.0f)
                 .attr("seed", 7.0f)
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float32);
  ASSERT_EQ(out[0].shape(), Shape{kSamples});
  for (float v : out[0].to_vector<float>()) {
    ASSERT_GE(v, -2.0f);
    ASSERT_LT(v, 3.0f);
  }
  // Uniform on [-2, 3): mean 0.5, variance 25 / 12.
  const Moments m = moments_of<float>(out[0]);
  EXPECT_NEAR(m.mean, 0.5, 0.06);
  EXPECT_NEAR(m.variance, 25.0 / 12, 0.08);
}

TEST(RandomUniform, SeedMakesRunsRepeatable) {
  auto uniform = [](float seed) {
    return OpTest("RandomUniform", 22)
        .attr("shape", std::vector<int64_t>{2, 50})
        .attr("seed", seed)
        .run()[0]
        .to_vector<float>();
  };
  EXPECT_EQ(uniform(1.0f), uniform(1.0f));
  EXPECT_NE(uniform(1.0f), uniform(2.0f));
  // Without a seed each run draws afresh.
  auto unseeded = [] {
    return OpTest("RandomUniform", 22)
        .attr("shape", std::vector<int64_t>{100})
        .run()[0]
        .to_vector<float>();
  };
  EXPECT_NE(unseeded(), unseeded());
}

TEST(RandomNormal, MomentsAndDtype) {
  auto out = OpTest("RandomNormal", 22)
                 .attr("shape", std::vector<int64_t>{kSamples})
                 .attr("mean", 5.0f)
                 .attr("scale", 2.0f)
                 .attr("seed", 3.0f)
                 .attr("dtype", int64_t{11})
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float64);
  const Moments m = moments_of<double>(out[0]);
  EXPECT_NEAR(m.mean, 5.0, 0.08);
  EXPECT_NEAR(m.variance, 4.0, 0.25);
  // About 68.3% of a normal lies within one standard deviation of the mean.
  int64_t within = 0;
  for (double v : out[0].to_vector<double>()) within += std::abs(v - 5.0) < 2.0 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(within) / kSamples, 0.6827, 0.015);
}

TEST(RandomNormal, Float16AndEmptyShape) {
  auto h = OpTest("RandomNormal", 22)
               .attr("shape", std::vector<int64_t>{4, 3})
               .attr("dtype", int64_t{10})
               .run();
  EXPECT_EQ(h[0].dtype(), DataType::Float16);
  EXPECT_EQ(h[0].shape(), (Shape{4, 3}));
  auto empty = OpTest("RandomNormal", 22).attr("shape", std::vector<int64_t>{0, 3}).run();
  EXPECT_EQ(empty[0].shape(), (Shape{0, 3}));
}

TEST(RandomUniform, BadAttributes) {
  EXPECT_THROW(OpTest("RandomUniform", 22).run(), Error);  // no shape
  EXPECT_THROW(OpTest("RandomUniform", 22).attr("shape", std::vector<int64_t>{-1}).run(), Error);
  EXPECT_THROW(OpTest("RandomNormal", 22)
                   .attr("shape", std::vector<int64_t>{2})
                   .attr("dtype", int64_t{6})
                   .run(),
               Error);
}

// --- RandomUniformLike / RandomNormalLike -----------------------------------------------------

TEST(RandomUniformLike, TakesShapeAndTypeFromTheInput) {
  auto out = OpTest("RandomUniformLike", 22)
                 .input(Tensor::zeros(DataType::Float16, Shape{3, 4}))
                 .attr("low", 10.0f)
                 .attr("high", 11.0f)
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Float16);
  EXPECT_EQ(out[0].shape(), (Shape{3, 4}));
  for (int64_t i = 0; i < 12; ++i) {
    const float v = static_cast<float>(out[0].data<Float16>()[i]);
    EXPECT_GE(v, 10.0f);
    EXPECT_LE(v, 11.0f);  // float16 rounding may reach the upper bound
  }
}

TEST(RandomUniformLike, DtypeOverridesANonFloatInput) {
  auto out = OpTest("RandomUniformLike", 22)
                 .input(i64({2, 2}, {0, 0, 0, 0}))
                 .attr("dtype", int64_t{1})
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Float32);
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  // Without dtype an integer input leaves no valid output type.
  EXPECT_THROW(OpTest("RandomUniformLike", 22).input(i64({1}, {0})).run(), Error);
}

TEST(RandomNormalLike, Moments) {
  auto out = OpTest("RandomNormalLike", 22)
                 .input(Tensor::zeros(DataType::Float64, Shape{kSamples}))
                 .attr("seed", 11.0f)
                 .run();
  const Moments m = moments_of<double>(out[0]);
  EXPECT_NEAR(m.mean, 0.0, 0.04);
  EXPECT_NEAR(m.variance, 1.0, 0.06);
}

// --- Bernoulli -------------------------------------------------------------------------------

TEST(Bernoulli, DegenerateProbabilitiesAreExact) {
  auto out = OpTest("Bernoulli", 22).input(f32({4}, {0, 1, 1, 0})).run();
  EXPECT_EQ(out[0].dtype(), DataType::Float32);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 1, 1, 0}));
  auto as_bool = OpTest("Bernoulli", 22).input(f32({2}, {1, 0})).attr("dtype", int64_t{9}).run();
  EXPECT_EQ(as_bool[0].dtype(), DataType::Bool);
  EXPECT_TRUE(as_bool[0].data<bool>()[0]);
  EXPECT_FALSE(as_bool[0].data<bool>()[1]);
}

TEST(Bernoulli, FrequencyMatchesTheProbability) {
  auto out = OpTest("Bernoulli", 22)
                 .input(Tensor::from_data<double>({kSamples}, std::vector<double>(kSamples, 0.3)))
                 .attr("dtype", int64_t{6})
                 .attr("seed", 5.0f)
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Int32);
  // The standard error of the frequency is sqrt(0.3 * 0.7 / 20000) ~ 0.0032.
  EXPECT_NEAR(moments_of<int32_t>(out[0]).mean, 0.3, 0.016);
}

TEST(Bernoulli, BadInput) {
  EXPECT_THROW(OpTest("Bernoulli", 22).input(f32({2}, {0.5f, 1.5f})).run(), Error);
  EXPECT_THROW(OpTest("Bernoulli", 22).input(f32({1}, {std::nanf("")})).run(), Error);
  EXPECT_THROW(OpTest("Bernoulli", 22).input(i64({1}, {1})).run(), Error);
}

// --- Multinomial -----------------------------------------------------------------------------

TEST(Multinomial, FrequenciesFollowTheSoftmax) {
  // Row 0: log-weights log 1 and log 3, so class 1 has probability 0.75.
  // Row 1: class 1 has weight zero (-inf) and must never be drawn.
  const float inf = std::numeric_limits<float>::infinity();
  auto out = OpTest("Multinomial", 7)
                 .input(f32({2, 3}, {0.0f, std::log(3.0f), -inf, 0.0f, -inf, 0.0f}))
                 .attr("sample_size", kSamples)
                 .attr("seed", 2.0f)
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Int32);
  ASSERT_EQ(out[0].shape(), (Shape{2, kSamples}));
  const int32_t* drawn = out[0].data<int32_t>();
  int64_t ones = 0, row1_twos = 0;
  for (int64_t s = 0; s < kSamples; ++s) {
    ASSERT_TRUE(drawn[s] == 0 || drawn[s] == 1);
    ones += drawn[s];
    ASSERT_NE(drawn[kSamples + s], 1);
    row1_twos += drawn[kSamples + s] == 2 ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(ones) / kSamples, 0.75, 0.015);
  EXPECT_NEAR(static_cast<double>(row1_twos) / kSamples, 0.5, 0.02);
}

TEST(Multinomial, Int64AndNoSamples) {
  auto out = OpTest("Multinomial", 7)
                 .input(f32({1, 2}, {0, 0}))
                 .attr("dtype", int64_t{7})
                 .attr("sample_size", 5)
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Int64);
  EXPECT_EQ(out[0].shape(), (Shape{1, 5}));
  auto none =
      OpTest("Multinomial", 7).input(f32({3, 2}, {0, 0, 0, 0, 0, 0})).attr("sample_size", 0).run();
  EXPECT_EQ(none[0].shape(), (Shape{3, 0}));
}

TEST(Multinomial, BadInput) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(OpTest("Multinomial", 7).input(f32({2}, {0, 0})).run(), Error);
  EXPECT_THROW(OpTest("Multinomial", 7).input(f32({1, 2}, {-inf, -inf})).run(), Error);
  EXPECT_THROW(OpTest("Multinomial", 7).input(f32({1, 2}, {0, std::nanf("")})).run(), Error);
  EXPECT_THROW(OpTest("Multinomial", 7).input(f32({1, 2}, {0, 0})).attr("dtype", int64_t{1}).run(),
               Error);
  EXPECT_THROW(OpTest("Multinomial", 7).input(f32({1, 2}, {0, 0})).attr("sample_size", -1).run(),
               Error);
}

}  // namespace
}  // namespace kiln::testing
