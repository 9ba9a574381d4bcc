// Tests of the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum) against
// hand-computed updates.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

OpTest training_op(const char* op) { return OpTest(op, 21, kTraining); }

Tensor scalar_f32(float v) { return Tensor::scalar<float>(v); }
Tensor scalar_i64(int64_t v) { return Tensor::scalar<int64_t>(v); }

void expect_values(const Tensor& t, const Shape& shape, const std::vector<float>& values) {
  EXPECT_EQ(t.shape(), shape);
  EXPECT_TRUE(all_close(t, f32(shape, values), 1e-5, 1e-6)) << t.to_string();
}

// --- Adagrad -----------------------------------------------------------------------------------

TEST(Adagrad, DecaysTheRateAndScalesByTheAccumulatedSquares) {
  // r = 0.5 / (1 + 1 * 1) = 0.25; H_new = H + G^2 = {9, 25};
  // X_new = X - r * G / sqrt(H_new) = {1 - 0.25, 2 - 0.25 * 4 / 5}.
  auto out = training_op("Adagrad")
                 .input(scalar_f32(0.5f))
                 .input(scalar_i64(1))
                 .input(f32({2}, {1, 2}))
                 .input(f32({2}, {3, 4}))
                 .input(f32({2}, {0, 9}))
                 .attr("decay_factor", 1.0f)
                 .attr("epsilon", 0.0f)
                 .outputs(2)
                 .run();
  expect_values(out[0], {2}, {0.75f, 1.8f});
  expect_values(out[1], {2}, {9, 25});
}

TEST(Adagrad, NormCoefficientAddsTheRegularizerGradient) {
  // G' = 0.5 * X + G = 4; H_new = 16; X_new = 2 - 1 * 4 / (4 + 1).
  auto out = training_op("Adagrad")
                 .input(scalar_f32(1.0f))
                 .input(scalar_i64(0))
                 .input(f32({1}, {2}))
                 .input(f32({1}, {3}))
                 .input(f32({1}, {0}))
                 .attr("norm_coefficient", 0.5f)
                 .attr("epsilon", 1.0f)
                 .outputs(2)
                 .run();
  expect_values(out[0], {1}, {1.2f});
  expect_values(out[1], {1}, {16});
}

TEST(Adagrad, UpdatesSeveralTensorsOfDifferentShapes) {
  // Inputs R, T, X1, X2, G1, G2, H1, H2; outputs X1_new, X2_new, H1_new, H2_new.
  auto out = training_op("Adagrad")
                 .input(scalar_f32(1.0f))
                 .input(scalar_i64(0))
                 .input(f32({1}, {1}))
                 .input(f32({2, 1}, {0, 0}))
                 .input(f32({1}, {2}))
                 .input(f32({2, 1}, {3, -4}))
                 .input(f32({1}, {0}))
                 .input(f32({2, 1}, {0, 0}))
                 .attr("epsilon", 0.0f)
                 .outputs(4)
                 .run();
  expect_values(out[0], {1}, {0});
  expect_values(out[1], {2, 1}, {-1, 1});
  expect_values(out[2], {1}, {4});
  expect_values(out[3], {2, 1}, {9, 16});
}

TEST(Adagrad, DoubleTensors) {
  auto out = training_op("Adagrad")
                 .input(Tensor::scalar<double>(1.0))
                 .input(scalar_i64(0))
                 .input(Tensor::from_data<double>({1}, {1.0}))
                 .input(Tensor::from_data<double>({1}, {2.0}))
                 .input(Tensor::from_data<double>({1}, {0.0}))
                 .attr("epsilon", 0.0f)
                 .outputs(2)
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_DOUBLE_EQ(out[0].data<double>()[0], 0.0);
  EXPECT_DOUBLE_EQ(out[1].data<double>()[0], 4.0);
}

// --- Adam --------------------------------------------------------------------------------------

OpTest adam(int64_t t) {
  // V_new = 0.5 * V + 0.5 * G, H_new = 0.75 * H + 0.25 * G^2.
  return training_op("Adam")
      .input(scalar_f32(1.0f))
      .input(scalar_i64(t))
      .input(f32({1}, {1}))
      .input(f32({1}, {2}))
      .input(f32({1}, {0}))
      .input(f32({1}, {0}))
      .attr("alpha", 0.5f)
      .attr("beta", 0.75f)
      .attr("epsilon", 0.0f)
      .outputs(3);
}

TEST(Adam, FirstStepHasNoBiasCorrection) {
  // V_new = 1, H_new = 1, X_new = 1 - 1 * 1 / 1.
  auto out = adam(0).run();
  expect_values(out[0], {1}, {0});
  expect_values(out[1], {1}, {1});
  expect_values(out[2], {1}, {1});
}

TEST(Adam, LaterStepsCorrectTheRateForBias) {
  // r = sqrt(1 - 0.75^2) / (1 - 0.5^2)
  const float r = std::sqrt(1.0f - 0.5625f) / 0.75f;
  auto out = adam(2).run();
  expect_values(out[0], {1}, {1 - r});
}

TEST(Adam, NormCoefficientPostScalesTheResult) {
  const float r = std::sqrt(1.0f - 0.5625f) / 0.75f;
  auto out = adam(2).attr("norm_coefficient_post", 0.5f).run();
  expect_values(out[0], {1}, {0.5f * (1 - r)});
}

TEST(Adam, UpdatesSeveralTensorsRoleByRole) {
  // Inputs R, T, X1, X2, G1, G2, V1, V2, H1, H2; outputs X*, V*, H*.
  auto out = training_op("Adam")
                 .input(scalar_f32(1.0f))
                 .input(scalar_i64(0))
                 .input(f32({1}, {1}))
                 .input(f32({2}, {5, 5}))
                 .input(f32({1}, {2}))
                 .input(f32({2}, {2, -2}))
                 .input(f32({1}, {0}))
                 .input(f32({2}, {0, 0}))
                 .input(f32({1}, {0}))
                 .input(f32({2}, {0, 0}))
                 .attr("alpha", 0.5f)
                 .attr("beta", 0.75f)
                 .attr("epsilon", 0.0f)
                 .outputs(6)
                 .run();
  expect_values(out[0], {1}, {0});
  expect_values(out[1], {2}, {4, 6});
  expect_values(out[2], {1}, {1});
  expect_values(out[3], {2}, {1, -1});
  expect_values(out[4], {1}, {1});
  expect_values(out[5], {2}, {1, 1});
}

// --- Momentum ----------------------------------------------------------------------------------

OpTest momentum(const char* mode, int64_t t, float norm_coefficient = 0.0f) {
  return training_op("Momentum")
      .input(scalar_f32(0.5f))
      .input(scalar_i64(t))
      .input(f32({2}, {1, 2}))
      .input(f32({2}, {1, -1}))
      .input(f32({2}, {2, 0}))
      .attr("alpha", 0.9f)
      .attr("beta", 0.1f)
      .attr("norm_coefficient", norm_coefficient)
      .attr("mode", mode)
      .outputs(2);
}

TEST(Momentum, FirstStepTakesTheWholeGradient) {
  // V_new = 0.9 * V + G = {2.8, -1}; X_new = X - 0.5 * V_new.
  auto out = momentum("standard", 0).run();
  expect_values(out[0], {2}, {-0.4f, 2.5f});
  expect_values(out[1], {2}, {2.8f, -1});
}

TEST(Momentum, LaterStepsScaleTheGradientByBeta) {
  // V_new = 0.9 * V + 0.1 * G = {1.9, -0.1}.
  auto out = momentum("standard", 1).run();
  expect_values(out[0], {2}, {0.05f, 2.05f});
  expect_values(out[1], {2}, {1.9f, -0.1f});
}

TEST(Momentum, NesterovStepsAlongGradientPlusMomentum) {
  // X_new = X - 0.5 * (G + 0.9 * V_new).
  auto out = momentum("nesterov", 1).run();
  expect_values(out[0], {2}, {-0.355f, 2.545f});
  expect_values(out[1], {2}, {1.9f, -0.1f});
}

TEST(Momentum, NormCoefficientAddsTheRegularizerGradient) {
  // G' = G + 1 * X = {2, 1}; V_new = 0.9 * V + G' = {3.8, 1}.
  auto out = momentum("standard", 0, 1.0f).run();
  expect_values(out[1], {2}, {3.8f, 1});
}

TEST(Momentum, SkipsUnwantedOutputs) {
  auto out = momentum("standard", 0).outputs(1).run();
  ASSERT_EQ(out.size(), 1u);
  expect_values(out[0], {2}, {-0.4f, 2.5f});
}

// --- Bad input ---------------------------------------------------------------------------------

TEST(TrainingOps, RejectsBadAttributes) {
  EXPECT_THROW(momentum("heavy-ball", 0).run(), Error);
  auto missing_alpha = training_op("Momentum")
                           .input(scalar_f32(0.5f))
                           .input(scalar_i64(0))
                           .input(f32({1}, {1}))
                           .input(f32({1}, {1}))
                           .input(f32({1}, {1}))
                           .attr("beta", 0.1f)
                           .attr("norm_coefficient", 0.0f)
                           .attr("mode", "standard")
                           .outputs(2);
  EXPECT_THROW(missing_alpha.run(), Error);
}

TEST(TrainingOps, RejectsInputsThatDoNotFormGroups) {
  // Adam needs 4 tensors per variable: 5 inputs are R, T and 3.
  auto op = training_op("Adam")
                .input(scalar_f32(1.0f))
                .input(scalar_i64(0))
                .input(f32({1}, {1}))
                .input(f32({1}, {1}))
                .input(f32({1}, {1}))
                .outputs(3);
  EXPECT_THROW(op.run(), Error);
}

TEST(TrainingOps, RejectsMismatchedTensorsAndScalars) {
  auto with = [](const Tensor& r, const Tensor& t, const Tensor& g) {
    return training_op("Adagrad")
        .input(r)
        .input(t)
        .input(f32({2}, {1, 2}))
        .input(g)
        .input(f32({2}, {0, 0}))
        .outputs(2);
  };
  const Tensor g = f32({2}, {1, 1});
  EXPECT_NO_THROW(with(scalar_f32(1), scalar_i64(0), g).run());
  EXPECT_THROW(with(scalar_f32(1), scalar_i64(0), f32({3}, {1, 1, 1})).run(), Error);
  EXPECT_THROW(with(f32({2}, {1, 1}), scalar_i64(0), g).run(), Error);
  EXPECT_THROW(with(scalar_f32(1), Tensor::scalar<int32_t>(0), g).run(), Error);
  EXPECT_THROW(with(scalar_f32(1), scalar_i64(0), i64({2}, {1, 1})).run(), Error);
}

TEST(TrainingOps, DoesNotModifyInputs) {
  const Tensor x = f32({2}, {1, 2});
  const Tensor v = f32({2}, {2, 0});
  training_op("Momentum")
      .input(scalar_f32(0.5f))
      .input(scalar_i64(0))
      .input(x)
      .input(f32({2}, {1, -1}))
      .input(v)
      .attr("alpha", 0.9f)
      .attr("beta", 0.1f)
      .attr("norm_coefficient", 0.0f)
      .attr("mode", "standard")
      .outputs(2)
      .run();
  expect_values(x, {2}, {1, 2});
  expect_values(v, {2}, {2, 0});
}

}  // namespace
}  // namespace kiln::testing
