// Tests of Det against hand-computed determinants.
#include <gtest/gtest.h>

#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

TEST(Det, TwoByTwoAndPivotingThreeByThree) {
  auto two = OpTest("Det", 11).input(f32({2, 2}, {1, 2, 3, 4})).run();
  EXPECT_EQ(two[0].shape(), Shape{});
  EXPECT_FLOAT_EQ(two[0].data<float>()[0], -2);
  // A zero in the first pivot position forces a row swap: the determinant is -2.
  auto three = OpTest("Det", 11).input(f32({3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8})).run();
  EXPECT_NEAR(three[0].data<float>()[0], -2, 1e-5);
}

TEST(Det, BatchesAndSingularMatrices) {
  auto out = OpTest("Det", 11).input(f32({2, 2, 2}, {2, 0, 0, 2, 1, 2, 2, 4})).run();
  EXPECT_EQ(out[0].shape(), Shape{2});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 0}));
}

TEST(Det, DoubleAndFloat16) {
  auto d = OpTest("Det", 11).input(Tensor::from_data<double>({2, 2}, {0.5, 1, 2, 3})).run();
  EXPECT_DOUBLE_EQ(d[0].data<double>()[0], -0.5);
  auto h = OpTest("Det", 11)
               .input(Tensor::from_data<Float16>(
                   {2, 2}, {Float16(3.0f), Float16(1.0f), Float16(1.0f), Float16(1.0f)}))
               .run();
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[0]), 2.0f);
}

TEST(Det, EmptyMatricesAndEmptyBatch) {
  // The determinant of a 0 x 0 matrix is the empty product, 1.
  auto zero = OpTest("Det", 11).input(f32({3, 0, 0}, {})).run();
  EXPECT_EQ(zero[0].to_vector<float>(), (std::vector<float>{1, 1, 1}));
  auto none = OpTest("Det", 11).input(f32({0, 2, 2}, {})).run();
  EXPECT_EQ(none[0].shape(), Shape{0});
}

TEST(Det, BadInput) {
  EXPECT_THROW(OpTest("Det", 11).input(f32({2, 3}, {1, 2, 3, 4, 5, 6})).run(), Error);
  EXPECT_THROW(OpTest("Det", 11).input(f32({2}, {1, 2})).run(), Error);
  EXPECT_THROW(OpTest("Det", 11).input(i64({1, 1}, {3})).run(), Error);
}

}  // namespace
}  // namespace kiln::testing
