// Tests of Expand, Tile and Pad against hand-computed values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

void expect_f32(const Tensor& t, const Shape& shape, const std::vector<float>& values) {
  ASSERT_EQ(t.dtype(), DataType::Float32);
  EXPECT_EQ(t.shape(), shape);
  EXPECT_EQ(t.to_vector<float>(), values);
}

// --- Expand ----------------------------------------------------------------------------------

TEST(Expand, BroadcastsBothWays) {
  auto out = OpTest("Expand").input(f32({3, 1}, {1, 2, 3})).input(i64({2}, {1, 4})).run();
  expect_f32(out[0], {3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
}

TEST(Expand, ShapeOfHigherRankAndOnesKeepInputDims) {
  auto out = OpTest("Expand").input(f32({3}, {1, 2, 3})).input(i64({3}, {2, 1, 1})).run();
  expect_f32(out[0], {2, 1, 3}, {1, 2, 3, 1, 2, 3});
}

TEST(Expand, ScalarAndEmpty) {
  auto out = OpTest("Expand").input(Tensor::scalar<int32_t>(7)).input(i64({2}, {2, 2})).run();
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{7, 7, 7, 7}));
  auto empty = OpTest("Expand").input(f32({1, 2}, {1, 2})).input(i64({2}, {0, 2})).run();
  EXPECT_EQ(empty[0].shape(), (Shape{0, 2}));
}

TEST(Expand, Strings) {
  auto x = Tensor::from_data<std::string>({2, 1}, {"a", "bc"});
  auto out = OpTest("Expand").input(x).input(i64({2}, {2, 2})).run();
  EXPECT_EQ(out[0].to_vector<std::string>(), (std::vector<std::string>{"a", "a", "bc", "bc"}));
}

TEST(Expand, IncompatibleShapeFails) {
  EXPECT_THROW(OpTest("Expand").input(f32({3}, {1, 2, 3})).input(i64({1}, {2})).run(), Error);
  EXPECT_THROW(OpTest("Expand").input(f32({1}, {1})).input(i64({1}, {-2})).run(), Error);
}

// --- Tile ------------------------------------------------------------------------------------

TEST(Tile, RepeatsEveryAxis) {
  auto out = OpTest("Tile").input(f32({2, 2}, {1, 2, 3, 4})).input(i64({2}, {2, 3})).run();
  expect_f32(out[0], {4, 6},
             {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4});
}

TEST(Tile, ZeroRepeatAndScalar) {
  auto out = OpTest("Tile").input(f32({2}, {1, 2})).input(i64({1}, {0})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0}));
  auto scalar = OpTest("Tile").input(Tensor::scalar<int64_t>(5)).input(i64({0}, {})).run();
  EXPECT_EQ(scalar[0].to_vector<int64_t>(), (std::vector<int64_t>{5}));
}

TEST(Tile, BadRepeatsFail) {
  EXPECT_THROW(OpTest("Tile").input(f32({2}, {1, 2})).input(i64({2}, {1, 1})).run(), Error);
  EXPECT_THROW(OpTest("Tile").input(f32({2}, {1, 2})).input(i64({1}, {-1})).run(), Error);
}

// --- Pad -------------------------------------------------------------------------------------

const Tensor kX = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(Pad, ConstantWithValue) {
  auto out = OpTest("Pad")
                 .input(kX)
                 .input(i64({4}, {1, 0, 0, 2}))
                 .input(Tensor::scalar<float>(9))
                 .constant_input(1)
                 .run();
  expect_f32(out[0], {3, 5}, {9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9});
}

TEST(Pad, ConstantDefaultsToZero) {
  auto out = OpTest("Pad").input(f32({2}, {1, 2})).input(i64({2}, {1, 1})).run();
  expect_f32(out[0], {4}, {0, 1, 2, 0});
}

TEST(Pad, Reflect) {
  auto out = OpTest("Pad").input(kX).input(i64({4}, {0, 2, 0, 1})).attr("mode", "reflect").run();
  expect_f32(out[0], {2, 6}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
}

TEST(Pad, ReflectWiderThanAxisRepeatsTheReflection) {
  auto out = OpTest("Pad")
                 .input(f32({3}, {1, 2, 3}))
                 .input(i64({2}, {4, 0}))
                 .attr("mode", "reflect")
                 .run();
  // numpy.pad([1, 2, 3], (4, 0), 'reflect')
  expect_f32(out[0], {7}, {1, 2, 3, 2, 1, 2, 3});
}

TEST(Pad, Edge) {
  auto out = OpTest("Pad").input(kX).input(i64({4}, {1, 1, 0, 0})).attr("mode", "edge").run();
  expect_f32(out[0], {3, 4}, {1, 1, 2, 3, 1, 1, 2, 3, 4, 4, 5, 6});
}

TEST(Pad, Wrap) {
  auto out = OpTest("Pad").input(kX).input(i64({4}, {0, 1, 1, 2})).attr("mode", "wrap").run();
  expect_f32(out[0], {3, 6}, {3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5, 3, 1, 2, 3, 1, 2});
}

TEST(Pad, NegativePadsCrop) {
  auto out = OpTest("Pad").input(kX).input(i64({4}, {0, -1, 0, 1})).run();
  expect_f32(out[0], {2, 3}, {2, 3, 0, 5, 6, 0});
  // Non-constant modes reflect within the cropped range.
  auto edge = OpTest("Pad").input(kX).input(i64({4}, {0, -1, 0, 1})).attr("mode", "edge").run();
  expect_f32(edge[0], {2, 3}, {2, 3, 3, 5, 6, 6});
}

TEST(Pad, AxesInputWithNegativeAxis) {
  auto out = OpTest("Pad")
                 .input(kX)
                 .input(i64({2}, {1, 1}))
                 .input(Tensor::scalar<float>(7))
                 .input(i64({1}, {-1}))
                 .run();
  expect_f32(out[0], {2, 5}, {7, 1, 2, 3, 7, 7, 4, 5, 6, 7});
}

TEST(Pad, AttributesBeforeOpset11) {
  auto out = OpTest("Pad", 2)
                 .input(f32({2}, {1, 2}))
                 .attr("pads", std::vector<int64_t>{1, 2})
                 .attr("value", 1.5f)
                 .run();
  expect_f32(out[0], {5}, {1.5f, 1, 2, 1.5f, 1.5f});
}

TEST(Pad, IntegerStringAndBool) {
  auto i = OpTest("Pad")
               .input(Tensor::from_data<int8_t>({2}, {-1, 2}))
               .input(i64({2}, {1, 0}))
               .input(Tensor::scalar<int8_t>(5))
               .run();
  EXPECT_EQ(i[0].to_vector<int8_t>(), (std::vector<int8_t>{5, -1, 2}));
  auto s = OpTest("Pad")
               .input(Tensor::from_data<std::string>({1}, {"x"}))
               .input(i64({2}, {1, 1}))
               .input(Tensor::scalar<std::string>("pad"))
               .run();
  EXPECT_EQ(s[0].to_vector<std::string>(), (std::vector<std::string>{"pad", "x", "pad"}));
  auto b = OpTest("Pad").input(Tensor::from_data<bool>({1}, {true})).input(i64({2}, {0, 1})).run();
  EXPECT_EQ(b[0].to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(Pad, EmptyInputConstantPad) {
  auto out = OpTest("Pad").input(f32({0, 2}, {})).input(i64({4}, {1, 0, 0, 0})).run();
  expect_f32(out[0], {1, 2}, {0, 0});
}

TEST(Pad, BadInputFails) {
  // Wrong number of pads.
  EXPECT_THROW(OpTest("Pad").input(kX).input(i64({2}, {1, 1})).run(), Error);
  // Cropping more than the axis holds.
  EXPECT_THROW(OpTest("Pad").input(kX).input(i64({4}, {-2, 0, -1, 0})).run(), Error);
  // Reflecting an empty axis.
  EXPECT_THROW(
      OpTest("Pad").input(f32({0}, {})).input(i64({2}, {1, 0})).attr("mode", "reflect").run(),
      Error);
  EXPECT_THROW(OpTest("Pad").input(kX).input(i64({4}, {0, 0, 0, 0})).attr("mode", "mirror").run(),
               Error);
  // Constant of another type.
  EXPECT_THROW(
      OpTest("Pad").input(kX).input(i64({4}, {0, 0, 0, 0})).input(Tensor::scalar<double>(1)).run(),
      Error);
}

}  // namespace
}  // namespace kiln::testing
