#include <gtest/gtest.h>

#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::i64;
using kiln::testing::OpTest;

namespace {

std::vector<float> iota_f(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

}  // namespace

TEST(Reshape, ZeroCopiesAndMinusOneInfers) {
  auto out = OpTest("Reshape").input(f32({2, 3, 4}, iota_f(24))).input(i64({3}, {0, -1, 2})).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 6, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), iota_f(24));
}

TEST(Reshape, AllowZeroKeepsZero) {
  auto out = OpTest("Reshape")
                 .input(Tensor::zeros(DataType::Float32, {0, 3, 4}))
                 .input(i64({3}, {3, 4, 0}))
                 .attr("allowzero", 1)
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{3, 4, 0}));
}

TEST(Reshape, ConstantShapeAndStrings) {
  auto x = Tensor::from_data<std::string>({2, 2}, {"a", "b", "c", "d"});
  auto out = OpTest("Reshape").input(x).input(i64({1}, {-1})).constant_input(1).run();
  EXPECT_EQ(out[0].shape(), (Shape{4}));
  EXPECT_EQ(out[0].to_vector<std::string>(), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Reshape, Opset1ShapeAttribute) {
  auto out = OpTest("Reshape", 1)
                 .input(f32({6}, iota_f(6)))
                 .attr("shape", std::vector<int64_t>{3, -1})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
}

TEST(Reshape, BadShapesFail) {
  EXPECT_THROW(OpTest("Reshape").input(f32({6}, iota_f(6))).input(i64({2}, {4, -1})).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Reshape").input(f32({6}, iota_f(6))).input(i64({2}, {-1, -1})).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Reshape").input(f32({6}, iota_f(6))).input(i64({2}, {5, 1})).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Reshape").input(f32({6}, iota_f(6))).input(i64({2}, {6, 0})).run(),
               kiln::Error);  // copies dim 1 of a rank-1 input
  EXPECT_THROW(OpTest("Reshape").input(f32({6}, iota_f(6))).input(i64({1}, {-2})).run(),
               kiln::Error);
}

TEST(Flatten, Axes) {
  auto x = f32({2, 3, 4}, iota_f(24));
  EXPECT_EQ(OpTest("Flatten").input(x).run()[0].shape(), (Shape{2, 12}));
  EXPECT_EQ(OpTest("Flatten").input(x).attr("axis", 0).run()[0].shape(), (Shape{1, 24}));
  EXPECT_EQ(OpTest("Flatten").input(x).attr("axis", 3).run()[0].shape(), (Shape{24, 1}));
  EXPECT_EQ(OpTest("Flatten").input(x).attr("axis", -1).run()[0].shape(), (Shape{6, 4}));
  EXPECT_THROW(OpTest("Flatten").input(x).attr("axis", 4).run(), kiln::Error);
  EXPECT_EQ(OpTest("Flatten").input(Tensor::scalar<float>(1)).attr("axis", 0).run()[0].shape(),
            (Shape{1, 1}));
}

TEST(Squeeze, AllOnesAndGivenAxes) {
  auto x = f32({1, 3, 1, 2}, iota_f(6));
  EXPECT_EQ(OpTest("Squeeze").input(x).run()[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(OpTest("Squeeze").input(x).input(i64({1}, {-2})).run()[0].shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(OpTest("Squeeze", 11).input(x).attr("axes", std::vector<int64_t>{0}).run()[0].shape(),
            (Shape{3, 1, 2}));
  EXPECT_THROW(OpTest("Squeeze").input(x).input(i64({1}, {1})).run(), kiln::Error);
  EXPECT_THROW(OpTest("Squeeze").input(x).input(i64({1}, {4})).run(), kiln::Error);
}

TEST(Unsqueeze, AxesAgainstOutputRank) {
  auto x = f32({3, 2}, iota_f(6));
  auto out = OpTest("Unsqueeze").input(x).input(i64({3}, {4, 0, -3})).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 3, 1, 2, 1}));
  EXPECT_EQ(out[0].to_vector<float>(), iota_f(6));
  EXPECT_EQ(OpTest("Unsqueeze", 11).input(x).attr("axes", std::vector<int64_t>{1}).run()[0].shape(),
            (Shape{3, 1, 2}));
  EXPECT_EQ(
      OpTest("Unsqueeze").input(Tensor::scalar<int64_t>(7)).input(i64({1}, {0})).run()[0].shape(),
      (Shape{1}));
  EXPECT_THROW(OpTest("Unsqueeze").input(x).input(i64({2}, {1, 1})).run(), kiln::Error);
  EXPECT_THROW(OpTest("Unsqueeze").input(x).input(i64({1}, {3})).run(), kiln::Error);
}

TEST(ShapeOp, StartEndClamp) {
  auto x = Tensor::zeros(DataType::Int8, {2, 3, 4, 5});
  EXPECT_EQ(OpTest("Shape").input(x).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(OpTest("Shape").input(x).attr("start", 1).attr("end", -1).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(
      OpTest("Shape").input(x).attr("start", -10).attr("end", 10).run()[0].to_vector<int64_t>(),
      (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(OpTest("Shape").input(x).attr("start", 3).attr("end", 1).run()[0].shape(), (Shape{0}));
  EXPECT_EQ(OpTest("Shape").input(Tensor::scalar<float>(1)).run()[0].shape(), (Shape{0}));
}

TEST(SizeOp, CountsElements) {
  auto out = OpTest("Size").input(Tensor::zeros(DataType::String, {2, 0, 3})).run();
  EXPECT_EQ(out[0].shape(), Shape{});
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(OpTest("Size").input(f32({2, 3}, iota_f(6))).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{6}));
}

TEST(Identity, PassesThrough) {
  auto x = Tensor::from_data<std::string>({2}, {"x", "y"});
  EXPECT_EQ(OpTest("Identity").input(x).run()[0].to_vector<std::string>(),
            (std::vector<std::string>{"x", "y"}));
}

TEST(Constant, EveryValueAttribute) {
  EXPECT_EQ(OpTest("Constant").attr("value", f32({2}, {1, 2})).run()[0].to_vector<float>(),
            (std::vector<float>{1, 2}));
  auto vf = OpTest("Constant").attr("value_float", 2.5f).run()[0];
  EXPECT_EQ(vf.shape(), Shape{});
  EXPECT_EQ(vf.to_vector<float>(), (std::vector<float>{2.5f}));
  EXPECT_EQ(OpTest("Constant").attr("value_floats", std::vector<float>{1, 2, 3}).run()[0].shape(),
            (Shape{3}));
  EXPECT_EQ(OpTest("Constant").attr("value_int", 7).run()[0].to_vector<int64_t>(),
            (std::vector<int64_t>{7}));
  EXPECT_EQ(OpTest("Constant")
                .attr("value_ints", std::vector<int64_t>{4, 5})
                .run()[0]
                .to_vector<int64_t>(),
            (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(OpTest("Constant").attr("value_string", "hi").run()[0].to_vector<std::string>(),
            (std::vector<std::string>{"hi"}));
  EXPECT_EQ(OpTest("Constant")
                .attr("value_strings", std::vector<std::string>{"a", "b"})
                .run()[0]
                .to_vector<std::string>(),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(OpTest("Constant").run(), kiln::Error);
  EXPECT_THROW(OpTest("Constant").attr("value_int", 1).attr("value_float", 1.0f).run(),
               kiln::Error);
}

TEST(ConstantOfShape, DefaultAndTypedValues) {
  auto z = OpTest("ConstantOfShape").input(i64({2}, {2, 3})).run()[0];
  EXPECT_EQ(z.dtype(), DataType::Float32);
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(6, 0.0f));
  auto v = OpTest("ConstantOfShape")
               .input(i64({1}, {3}))
               .attr("value", Tensor::from_data<int32_t>({1}, {9}))
               .run()[0];
  EXPECT_EQ(v.to_vector<int32_t>(), (std::vector<int32_t>{9, 9, 9}));
  auto s = OpTest("ConstantOfShape")
               .input(i64({0}, {}))
               .attr("value", Tensor::from_data<bool>({1}, {true}))
               .run()[0];
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(s.to_vector<bool>(), (std::vector<bool>{true}));
  EXPECT_EQ(OpTest("ConstantOfShape").input(i64({2}, {2, 0})).run()[0].shape(), (Shape{2, 0}));
  EXPECT_THROW(OpTest("ConstantOfShape").input(i64({1}, {-1})).run(), kiln::Error);
}

TEST(Dropout, InferenceIsIdentityWithTrueMask) {
  auto x = f32({2, 2}, {1, 2, 3, 4});
  auto out = OpTest("Dropout").input(x).outputs(2).run();
  EXPECT_EQ(out[0].to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(out[1].dtype(), DataType::Bool);
  EXPECT_EQ(out[1].to_vector<bool>(), std::vector<bool>(4, true));
  // Opset 7 masks have the input's type.
  auto old = OpTest("Dropout", 7).input(x).outputs(2).run();
  EXPECT_EQ(old[1].to_vector<float>(), std::vector<float>(4, 1.0f));
}

TEST(Dropout, TrainingMode) {
  auto x = f32({1000}, std::vector<float>(1000, 1.0f));
  auto zero = OpTest("Dropout")
                  .input(x)
                  .input(Tensor::scalar<float>(0.0f))
                  .input(Tensor::scalar<bool>(true))
                  .run();
  EXPECT_EQ(zero[0].to_vector<float>(), x.to_vector<float>());
  auto half = OpTest("Dropout")
                  .input(x)
                  .input(Tensor::scalar<float>(0.5f))
                  .input(Tensor::scalar<bool>(true))
                  .attr("seed", 3)
                  .outputs(2)
                  .run();
  const auto y = half[0].to_vector<float>();
  const auto mask = half[1].to_vector<bool>();
  int kept = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(y[i], mask[i] ? 2.0f : 0.0f);
    kept += mask[i];
  }
  EXPECT_GT(kept, 400);
  EXPECT_LT(kept, 600);
  EXPECT_THROW(OpTest("Dropout")
                   .input(x)
                   .input(Tensor::scalar<float>(1.5f))
                   .input(Tensor::scalar<bool>(true))
                   .run(),
               kiln::Error);
}
