// Tests of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// --- NegativeLogLikelihoodLoss -----------------------------------------------------------------

// Two samples over three classes; the targets pick -3 and -0.5, so the losses are 3 and 0.5.
const Tensor kLogProb = f32({2, 3}, {-1, -2, -3, -0.5f, -1.5f, -2.5f});
const Tensor kTarget = i64({2}, {2, 0});
const Tensor kWeight = f32({3}, {0.1f, 0.2f, 0.3f});

float scalar_of(const Tensor& t) {
  EXPECT_EQ(t.shape(), Shape{});
  return t.data<float>()[0];
}

TEST(NegativeLogLikelihoodLoss, Reductions) {
  auto mean = OpTest("NegativeLogLikelihoodLoss").input(kLogProb).input(kTarget).run();
  EXPECT_FLOAT_EQ(scalar_of(mean[0]), 1.75f);
  auto sum = OpTest("NegativeLogLikelihoodLoss")
                 .input(kLogProb)
                 .input(kTarget)
                 .attr("reduction", "sum")
                 .run();
  EXPECT_FLOAT_EQ(scalar_of(sum[0]), 3.5f);
  auto none = OpTest("NegativeLogLikelihoodLoss")
                  .input(kLogProb)
                  .input(kTarget)
                  .attr("reduction", "none")
                  .run();
  EXPECT_EQ(none[0].shape(), Shape{2});
  EXPECT_EQ(none[0].to_vector<float>(), (std::vector<float>{3, 0.5f}));
}

TEST(NegativeLogLikelihoodLoss, WeightedMeanDividesByTheWeightsUsed) {
  // (3 * 0.3 + 0.5 * 0.1) / (0.3 + 0.1)
  auto out =
      OpTest("NegativeLogLikelihoodLoss").input(kLogProb).input(kTarget).input(kWeight).run();
  EXPECT_NEAR(scalar_of(out[0]), 2.375f, 1e-6);
}

TEST(NegativeLogLikelihoodLoss, NegativeIgnoreIndex) {
  const Tensor target = i64({2}, {-1, 0});
  auto none = OpTest("NegativeLogLikelihoodLoss")
                  .input(kLogProb)
                  .input(target)
                  .input(kWeight)
                  .attr("reduction", "none")
                  .attr("ignore_index", -1)
                  .run();
  EXPECT_EQ(none[0].to_vector<float>(), (std::vector<float>{0, 0.05f}));
  // The ignored sample's weight leaves the denominator: 0.05 / 0.1.
  auto mean = OpTest("NegativeLogLikelihoodLoss")
                  .input(kLogProb)
                  .input(target)
                  .input(kWeight)
                  .attr("ignore_index", -1)
                  .run();
  EXPECT_NEAR(scalar_of(mean[0]), 0.5f, 1e-6);
  // Without weights the mean divides by the number of samples kept.
  auto unweighted = OpTest("NegativeLogLikelihoodLoss")
                        .input(kLogProb)
                        .input(target)
                        .attr("ignore_index", -1)
                        .run();
  EXPECT_FLOAT_EQ(scalar_of(unweighted[0]), 0.5f);
}

TEST(NegativeLogLikelihoodLoss, IgnoreIndexOutsideTheClasses) {
  auto out = OpTest("NegativeLogLikelihoodLoss")
                 .input(kLogProb)
                 .input(i64({2}, {10, 1}))
                 .attr("ignore_index", 10)
                 .attr("reduction", "sum")
                 .run();
  EXPECT_FLOAT_EQ(scalar_of(out[0]), 1.5f);
}

TEST(NegativeLogLikelihoodLoss, SpatialDimensionsAndInt32Targets) {
  // Input [N=1, C=2, d=2]: class 0 holds {-1, -2}, class 1 holds {-3, -4}.
  auto out = OpTest("NegativeLogLikelihoodLoss")
                 .input(f32({1, 2, 2}, {-1, -2, -3, -4}))
                 .input(Tensor::from_data<int32_t>({1, 2}, {1, 0}))
                 .attr("reduction", "none")
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 2}));
}

TEST(NegativeLogLikelihoodLoss, OtherFloatTypes) {
  auto d = OpTest("NegativeLogLikelihoodLoss")
               .input(Tensor::from_data<double>({2, 2}, {-0.25, -0.75, -1.5, -2.5}))
               .input(i64({2}, {1, 0}))
               .input(Tensor::from_data<double>({2}, {2, 4}))
               .attr("reduction", "sum")
               .run();
  EXPECT_DOUBLE_EQ(d[0].data<double>()[0], 0.75 * 4 + 1.5 * 2);
  auto h = OpTest("NegativeLogLikelihoodLoss")
               .input(Tensor::from_data<Float16>({1, 2}, {Float16(-0.5f), Float16(-2.0f)}))
               .input(i64({1}, {1}))
               .run();
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[0]), 2.0f);
}

TEST(NegativeLogLikelihoodLoss, EmptyBatch) {
  auto none = OpTest("NegativeLogLikelihoodLoss")
                  .input(f32({0, 3}, {}))
                  .input(i64({0}, {}))
                  .attr("reduction", "none")
                  .run();
  EXPECT_EQ(none[0].shape(), Shape{0});
  auto sum = OpTest("NegativeLogLikelihoodLoss")
                 .input(f32({0, 3}, {}))
                 .input(i64({0}, {}))
                 .attr("reduction", "sum")
                 .run();
  EXPECT_EQ(scalar_of(sum[0]), 0.0f);
}

TEST(NegativeLogLikelihoodLoss, BadInput) {
  auto nll = [] { return OpTest("NegativeLogLikelihoodLoss"); };
  // Target out of range, and a negative one that is not the ignore_index.
  EXPECT_THROW(nll().input(kLogProb).input(i64({2}, {3, 0})).run(), Error);
  EXPECT_THROW(nll().input(kLogProb).input(i64({2}, {-1, 0})).run(), Error);
  EXPECT_THROW(nll().input(kLogProb).input(kTarget).attr("reduction", "max").run(), Error);
  EXPECT_THROW(nll().input(f32({3}, {-1, -2, -3})).input(i64({}, {0})).run(), Error);
  EXPECT_THROW(nll().input(kLogProb).input(i64({3}, {0, 0, 0})).run(), Error);
  EXPECT_THROW(nll().input(kLogProb).input(kTarget).input(f32({2}, {1, 1})).run(), Error);
  EXPECT_THROW(nll().input(kLogProb).input(f32({2}, {2, 0})).run(), Error);
  EXPECT_THROW(nll().input(i64({2, 3}, {0, 0, 0, 0, 0, 0})).input(kTarget).run(), Error);
}

// --- SoftmaxCrossEntropyLoss -------------------------------------------------------------------

// Scores {1, 2, 3} with target 2 lose log(1 + e^-1 + e^-2); equal scores lose log(3).
const Tensor kScores = f32({2, 3}, {1, 2, 3, 1, 1, 1});
const double kLoss0 = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
const double kLoss1 = std::log(3.0);

TEST(SoftmaxCrossEntropyLoss, MeanAndLogProb) {
  auto out = OpTest("SoftmaxCrossEntropyLoss").outputs(2).input(kScores).input(kTarget).run();
  EXPECT_NEAR(scalar_of(out[0]), (kLoss0 + kLoss1) / 2, 1e-6);
  ASSERT_EQ(out[1].shape(), (Shape{2, 3}));
  const std::vector<float> log_prob = out[1].to_vector<float>();
  const std::vector<double> expected = {-2 - kLoss0, -1 - kLoss0, -kLoss0,
                                        -kLoss1,     -kLoss1,     -kLoss1};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(log_prob[i], expected[i], 1e-6);
}

TEST(SoftmaxCrossEntropyLoss, NoneWithWeightsAndIgnoreIndex) {
  auto out = OpTest("SoftmaxCrossEntropyLoss")
                 .input(kScores)
                 .input(i64({2}, {2, 1}))
                 .input(kWeight)
                 .attr("reduction", "none")
                 .attr("ignore_index", 1)
                 .run();
  const std::vector<float> loss = out[0].to_vector<float>();
  EXPECT_NEAR(loss[0], kLoss0 * 0.3, 1e-6);
  EXPECT_EQ(loss[1], 0.0f);
}

TEST(SoftmaxCrossEntropyLoss, SpatialSumIsStableForLargeScores) {
  // [N=1, C=2, d=2]: position 0 has scores {1000, 0}, position 1 has {0, 0}.
  auto out = OpTest("SoftmaxCrossEntropyLoss")
                 .input(f32({1, 2, 2}, {1000, 0, 0, 0}))
                 .input(i64({1, 2}, {1, 0}))
                 .attr("reduction", "sum")
                 .run();
  EXPECT_NEAR(scalar_of(out[0]), 1000 + std::log(2.0), 1e-3);
}

TEST(SoftmaxCrossEntropyLoss, DoubleAndFloat16WithAndWithoutLogProb) {
  const Tensor scores = Tensor::from_data<double>({2, 3}, {1, 2, 3, 1, 1, 1});
  auto one = OpTest("SoftmaxCrossEntropyLoss").input(scores).input(kTarget).run();
  auto two = OpTest("SoftmaxCrossEntropyLoss").outputs(2).input(scores).input(kTarget).run();
  EXPECT_NEAR(one[0].data<double>()[0], (kLoss0 + kLoss1) / 2, 1e-12);
  EXPECT_NEAR(two[0].data<double>()[0], (kLoss0 + kLoss1) / 2, 1e-12);
  EXPECT_NEAR(two[1].data<double>()[2], -kLoss0, 1e-12);

  auto h = OpTest("SoftmaxCrossEntropyLoss")
               .outputs(2)
               .input(Tensor::from_data<Float16>({1, 2}, {Float16(0.0f), Float16(0.0f)}))
               .input(i64({1}, {0}))
               .run();
  EXPECT_NEAR(static_cast<float>(h[0].data<Float16>()[0]), std::log(2.0), 1e-3);
  EXPECT_NEAR(static_cast<float>(h[1].data<Float16>()[1]), -std::log(2.0), 1e-3);
}

TEST(SoftmaxCrossEntropyLoss, BadInput) {
  EXPECT_THROW(OpTest("SoftmaxCrossEntropyLoss").input(kScores).input(i64({2}, {0, 5})).run(),
               Error);
  EXPECT_THROW(OpTest("SoftmaxCrossEntropyLoss").input(kScores).input(i64({1, 2}, {0, 0})).run(),
               Error);
  EXPECT_THROW(OpTest("SoftmaxCrossEntropyLoss")
                   .input(kScores)
                   .input(kTarget)
                   .attr("reduction", "average")
                   .run(),
               Error);
}

}  // namespace
}  // namespace kiln::testing
