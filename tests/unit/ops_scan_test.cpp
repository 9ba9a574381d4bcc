// Tests of CumSum, CumProd, TopK and NonZero against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// --- CumSum ----------------------------------------------------------------------------------

const Tensor kX = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(CumSum, Axis1) {
  auto out = OpTest("CumSum").input(kX).input(Tensor::scalar<int64_t>(1)).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 3, 6, 4, 9, 15}));
}

TEST(CumSum, NegativeAxisExclusiveReverse) {
  auto out = OpTest("CumSum")
                 .input(kX)
                 .input(Tensor::from_data<int32_t>({1}, {-2}))
                 .attr("exclusive", 1)
                 .attr("reverse", 1)
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 5, 6, 0, 0, 0}));
}

TEST(CumSum, ReverseInclusiveAndExclusive) {
  auto r = OpTest("CumSum")
               .input(f32({3}, {1, 2, 3}))
               .input(Tensor::scalar<int32_t>(0))
               .attr("reverse", 1)
               .run();
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{6, 5, 3}));
  auto e = OpTest("CumSum")
               .input(f32({3}, {1, 2, 3}))
               .input(Tensor::scalar<int32_t>(0))
               .attr("exclusive", 1)
               .run();
  EXPECT_EQ(e[0].to_vector<float>(), (std::vector<float>{0, 1, 3}));
}

TEST(CumSum, IntegerTypesAndFloat16) {
  auto i = OpTest("CumSum")
               .input(Tensor::from_data<int64_t>({3}, {5, -7, 1}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(i[0].to_vector<int64_t>(), (std::vector<int64_t>{5, -2, -1}));
  auto u = OpTest("CumSum")
               .input(Tensor::from_data<uint32_t>({2}, {1, 2}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(u[0].to_vector<uint32_t>(), (std::vector<uint32_t>{1, 3}));
  auto h = OpTest("CumSum")
               .input(Tensor::from_data<Float16>({2}, {Float16(0.5f), Float16(1.0f)}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[1]), 1.5f);
}

TEST(CumSum, EmptyAndBadAxis) {
  auto out = OpTest("CumSum").input(f32({0, 2}, {})).input(Tensor::scalar<int64_t>(1)).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 2}));
  EXPECT_THROW(OpTest("CumSum").input(kX).input(Tensor::scalar<int64_t>(2)).run(), Error);
  EXPECT_THROW(OpTest("CumSum").input(kX).input(i64({2}, {0, 1})).run(), Error);
}

// --- CumProd ---------------------------------------------------------------------------------

TEST(CumProd, AlongEachAxis) {
  auto rows = OpTest("CumProd", 26).input(kX).input(Tensor::scalar<int64_t>(1)).run();
  EXPECT_EQ(rows[0].to_vector<float>(), (std::vector<float>{1, 2, 6, 4, 20, 120}));
  auto cols = OpTest("CumProd", 26).input(kX).input(Tensor::from_data<int32_t>({1}, {-2})).run();
  EXPECT_EQ(cols[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 10, 18}));
}

TEST(CumProd, ExclusiveStartsAtOneAndReverseRunsBackwards) {
  const Tensor x = f32({4}, {2, 3, 4, 5});
  const Tensor axis = Tensor::scalar<int64_t>(0);
  auto e = OpTest("CumProd", 26).input(x).input(axis).attr("exclusive", 1).run();
  EXPECT_EQ(e[0].to_vector<float>(), (std::vector<float>{1, 2, 6, 24}));
  auto r = OpTest("CumProd", 26).input(x).input(axis).attr("reverse", 1).run();
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{120, 60, 20, 5}));
  auto re =
      OpTest("CumProd", 26).input(x).input(axis).attr("reverse", 1).attr("exclusive", 1).run();
  EXPECT_EQ(re[0].to_vector<float>(), (std::vector<float>{60, 20, 5, 1}));
}

TEST(CumProd, IntegersWrapOnOverflow) {
  auto i = OpTest("CumProd", 26)
               .input(Tensor::from_data<int32_t>({3}, {-3, 4, -5}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(i[0].to_vector<int32_t>(), (std::vector<int32_t>{-3, -12, 60}));
  // 65536 * 65536 = 2^32 wraps to 0 in uint32; 200 * 2 = 400 wraps to 144 in uint8.
  auto u = OpTest("CumProd", 26)
               .input(Tensor::from_data<uint32_t>({2}, {65536, 65536}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(u[0].to_vector<uint32_t>(), (std::vector<uint32_t>{65536, 0}));
  auto b = OpTest("CumProd", 26)
               .input(Tensor::from_data<uint8_t>({2}, {200, 2}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(b[0].to_vector<uint8_t>(), (std::vector<uint8_t>{200, 144}));
  auto d = OpTest("CumProd", 26)
               .input(Tensor::from_data<double>({2}, {0.5, 0.25}))
               .input(Tensor::scalar<int64_t>(0))
               .run();
  EXPECT_EQ(d[0].to_vector<double>(), (std::vector<double>{0.5, 0.125}));
}

TEST(CumProd, EmptyAndBadAxis) {
  auto out = OpTest("CumProd", 26).input(f32({2, 0}, {})).input(Tensor::scalar<int64_t>(0)).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 0}));
  EXPECT_THROW(OpTest("CumProd", 26).input(kX).input(Tensor::scalar<int64_t>(-3)).run(), Error);
  EXPECT_THROW(
      OpTest("CumProd", 26).input(Tensor::scalar<float>(2)).input(Tensor::scalar<int64_t>(0)).run(),
      Error);
  EXPECT_THROW(OpTest("CumProd", 26)
                   .input(Tensor::from_data<bool>({1}, {true}))
                   .input(Tensor::scalar<int64_t>(0))
                   .run(),
               Error);
}

// --- TopK ------------------------------------------------------------------------------------

TEST(TopK, LargestAlongLastAxis) {
  auto out = OpTest("TopK")
                 .outputs(2)
                 .input(f32({2, 4}, {1, 4, 3, 2, 8, 5, 6, 7}))
                 .input(i64({1}, {2}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 3, 8, 7}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0, 3}));
}

TEST(TopK, SmallestAlongAxisZero) {
  auto out = OpTest("TopK")
                 .outputs(2)
                 .input(f32({3, 2}, {3, 1, 1, 2, 2, 0}))
                 .input(i64({1}, {1}))
                 .attr("axis", 0)
                 .attr("largest", 0)
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

TEST(TopK, EqualValuesKeepLowerIndexFirst) {
  auto out = OpTest("TopK")
                 .outputs(2)
                 .input(Tensor::from_data<int32_t>({6}, {2, 5, 2, 5, 2, 1}))
                 .input(i64({1}, {4}))
                 .run();
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{5, 5, 2, 2}));
  EXPECT_EQ(out[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 0, 2}));
  auto small = OpTest("TopK")
                   .outputs(2)
                   .input(Tensor::from_data<int32_t>({6}, {2, 5, 2, 5, 2, 1}))
                   .input(i64({1}, {3}))
                   .attr("largest", 0)
                   .run();
  EXPECT_EQ(small[1].to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 2}));
}

TEST(TopK, NaNCountsAsLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto largest =
      OpTest("TopK").outputs(2).input(f32({4}, {1, nan, 3, 2})).input(i64({1}, {2})).run();
  EXPECT_EQ(largest[1].to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(std::isnan(largest[0].to_vector<float>()[0]));
  auto smallest = OpTest("TopK")
                      .outputs(2)
                      .input(f32({4}, {1, nan, 3, 2}))
                      .input(i64({1}, {4}))
                      .attr("largest", 0)
                      .run();
  EXPECT_EQ(smallest[1].to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 2, 1}));
}

TEST(TopK, Opset1AttributeAndZeroK) {
  auto out = OpTest("TopK", 1).outputs(2).input(f32({3}, {1, 3, 2})).attr("k", 1).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3}));
  auto none = OpTest("TopK").outputs(2).input(f32({3}, {1, 3, 2})).input(i64({1}, {0})).run();
  EXPECT_EQ(none[0].shape(), (Shape{0}));
}

TEST(TopK, Uint64AndDouble) {
  auto u = OpTest("TopK")
               .outputs(2)
               .input(Tensor::from_data<uint64_t>({3}, {1, ~uint64_t{0}, 7}))
               .input(i64({1}, {1}))
               .run();
  EXPECT_EQ(u[0].to_vector<uint64_t>(), (std::vector<uint64_t>{~uint64_t{0}}));
  auto d = OpTest("TopK")
               .outputs(2)
               .input(Tensor::from_data<double>({3}, {0.5, -1, 2}))
               .input(i64({1}, {3}))
               .attr("largest", 0)
               .run();
  EXPECT_EQ(d[0].to_vector<double>(), (std::vector<double>{-1, 0.5, 2}));
}

TEST(TopK, BadKFails) {
  EXPECT_THROW(OpTest("TopK").outputs(2).input(f32({3}, {1, 2, 3})).input(i64({1}, {4})).run(),
               Error);
  EXPECT_THROW(OpTest("TopK").outputs(2).input(f32({3}, {1, 2, 3})).input(i64({1}, {-1})).run(),
               Error);
  EXPECT_THROW(OpTest("TopK")
                   .outputs(2)
                   .input(f32({3}, {1, 2, 3}))
                   .input(i64({1}, {1}))
                   .attr("axis", 1)
                   .run(),
               Error);
}

// --- NonZero ---------------------------------------------------------------------------------

TEST(NonZero, MatrixCoordinatesRowMajor) {
  auto out = OpTest("NonZero").input(f32({2, 3}, {0, 1, 0, 2, 0, 3})).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, 0, 2}));
}

TEST(NonZero, BoolScalarAndEmpty) {
  auto b = OpTest("NonZero").input(Tensor::from_data<bool>({3}, {true, false, true})).run();
  EXPECT_EQ(b[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 2}));
  auto s = OpTest("NonZero").input(Tensor::scalar<int32_t>(4)).run();
  EXPECT_EQ(s[0].shape(), (Shape{1, 1}));
  auto z = OpTest("NonZero").input(f32({2, 2}, {0, 0, 0, 0})).run();
  EXPECT_EQ(z[0].shape(), (Shape{2, 0}));
}

}  // namespace
}  // namespace kiln::testing
