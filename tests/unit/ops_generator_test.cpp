// Tests of Range, OneHot, Trilu and EyeLike against hand-computed values.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// --- Range -----------------------------------------------------------------------------------

TEST(Range, FloatPositiveDelta) {
  auto out = OpTest("Range")
                 .input(Tensor::scalar<float>(1))
                 .input(Tensor::scalar<float>(2))
                 .input(Tensor::scalar<float>(0.25f))
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
}

TEST(Range, IntegerNegativeDeltaRoundsCountUp) {
  auto out = OpTest("Range")
                 .input(Tensor::scalar<int32_t>(10))
                 .input(Tensor::scalar<int32_t>(4))
                 .input(Tensor::scalar<int32_t>(-4))
                 .run();
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{10, 6}));
}

TEST(Range, EmptyWhenDeltaPointsAway) {
  auto out = OpTest("Range")
                 .input(Tensor::scalar<int64_t>(0))
                 .input(Tensor::scalar<int64_t>(5))
                 .input(Tensor::scalar<int64_t>(-1))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{0}));
}

TEST(Range, Int16DoubleAndFloat16) {
  auto i = OpTest("Range")
               .input(Tensor::scalar<int16_t>(-2))
               .input(Tensor::scalar<int16_t>(1))
               .input(Tensor::scalar<int16_t>(1))
               .run();
  EXPECT_EQ(i[0].to_vector<int16_t>(), (std::vector<int16_t>{-2, -1, 0}));
  auto d = OpTest("Range")
               .input(Tensor::scalar<double>(0))
               .input(Tensor::scalar<double>(1))
               .input(Tensor::scalar<double>(0.5))
               .run();
  EXPECT_EQ(d[0].to_vector<double>(), (std::vector<double>{0, 0.5}));
  auto h = OpTest("Range")
               .input(Tensor::scalar<Float16>(Float16(1.0f)))
               .input(Tensor::scalar<Float16>(Float16(4.0f)))
               .input(Tensor::scalar<Float16>(Float16(1.5f)))
               .run();
  ASSERT_EQ(h[0].element_count(), 2);
  EXPECT_EQ(static_cast<float>(h[0].data<Float16>()[1]), 2.5f);
}

TEST(Range, BadInputFails) {
  EXPECT_THROW(OpTest("Range")
                   .input(Tensor::scalar<int32_t>(0))
                   .input(Tensor::scalar<int32_t>(3))
                   .input(Tensor::scalar<int32_t>(0))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Range")
                   .input(Tensor::scalar<float>(0))
                   .input(Tensor::scalar<int32_t>(3))
                   .input(Tensor::scalar<float>(1))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Range")
                   .input(f32({2}, {0, 1}))
                   .input(Tensor::scalar<float>(3))
                   .input(Tensor::scalar<float>(1))
                   .run(),
               Error);
}

// --- OneHot ----------------------------------------------------------------------------------

TEST(OneHot, DefaultLastAxisWithNegativeAndOutOfRange) {
  auto out = OpTest("OneHot")
                 .input(i64({4}, {0, -1, 2, 5}))
                 .input(Tensor::scalar<int64_t>(3))
                 .input(f32({2}, {0, 1}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{4, 3}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0}));
}

TEST(OneHot, AxisZeroFloatIndicesFloatDepth) {
  auto out = OpTest("OneHot")
                 .input(f32({2}, {1, 0}))
                 .input(f32({1}, {2.7f}))  // depth truncates to 2
                 .input(Tensor::from_data<int32_t>({2}, {-1, 7}))
                 .attr("axis", 0)
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  // out[k][i] is on where indices[i] == k.
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{-1, 7, 7, -1}));
}

TEST(OneHot, NegativeAxisOnMatrix) {
  auto out = OpTest("OneHot")
                 .input(i64({2, 2}, {0, 1, 1, 0}))
                 .input(Tensor::scalar<int64_t>(2))
                 .input(f32({2}, {0, 1}))
                 .attr("axis", -2)
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 1, 0, 1, 1, 0}));
}

TEST(OneHot, BadInputFails) {
  auto base = [] { return OpTest("OneHot").input(i64({2}, {0, 1})); };
  EXPECT_THROW(base().input(Tensor::scalar<int64_t>(0)).input(f32({2}, {0, 1})).run(), Error);
  EXPECT_THROW(base().input(Tensor::scalar<int64_t>(2)).input(f32({3}, {0, 1, 2})).run(), Error);
  EXPECT_THROW(
      base().input(Tensor::scalar<int64_t>(2)).input(f32({2}, {0, 1})).attr("axis", 3).run(),
      Error);
}

// --- Trilu -----------------------------------------------------------------------------------

const Tensor kM = f32({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});

TEST(Trilu, UpperDefault) {
  auto out = OpTest("Trilu").input(kM).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
}

TEST(Trilu, LowerWithNegativeK) {
  auto out = OpTest("Trilu").input(kM).input(i64({}, {-1})).attr("upper", 0).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
}

TEST(Trilu, UpperPositiveKBeyondColumnsAndBatches) {
  auto out = OpTest("Trilu")
                 .input(Tensor::from_data<int32_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))
                 .input(i64({}, {1}))
                 .run();
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 0, 0, 0, 6, 0, 0}));
  auto none = OpTest("Trilu").input(kM).input(i64({}, {9})).run();
  EXPECT_EQ(none[0].to_vector<float>(), std::vector<float>(12, 0.0f));
}

// k at the ends of int64: the definition clamps it, so i + k cannot overflow.
TEST(Trilu, KAtTheEndsOfInt64) {
  const int64_t ends[] = {INT64_MAX, INT64_MIN};
  for (int64_t k : ends) {
    auto upper = OpTest("Trilu").input(kM).input(i64({}, {k})).run();
    auto lower = OpTest("Trilu").input(kM).input(i64({}, {k})).attr("upper", 0).run();
    const std::vector<float> all = kM.to_vector<float>(), none(12, 0.0f);
    EXPECT_EQ(upper[0].to_vector<float>(), k > 0 ? none : all);
    EXPECT_EQ(lower[0].to_vector<float>(), k > 0 ? all : none);
  }
}

TEST(Trilu, EmptyAndBadRank) {
  auto out = OpTest("Trilu").input(f32({0, 3}, {})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));
  EXPECT_THROW(OpTest("Trilu").input(f32({3}, {1, 2, 3})).run(), Error);
}

// --- EyeLike ---------------------------------------------------------------------------------

TEST(EyeLike, InputTypeAndOffsetDiagonal) {
  auto out = OpTest("EyeLike")
                 .input(Tensor::from_data<int32_t>({2, 3}, {9, 9, 9, 9, 9, 9}))
                 .attr("k", 1)
                 .run();
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 0, 0, 0, 1}));
}

TEST(EyeLike, DtypeAttributeAndNegativeK) {
  auto out = OpTest("EyeLike")
                 .input(f32({3, 2}, {0, 0, 0, 0, 0, 0}))
                 .attr("dtype", static_cast<int64_t>(DataType::Float64))
                 .attr("k", -1)
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{0, 0, 1, 0, 0, 1}));
  auto b = OpTest("EyeLike")
               .input(f32({2, 2}, {0, 0, 0, 0}))
               .attr("dtype", static_cast<int64_t>(DataType::Bool))
               .run();
  EXPECT_EQ(b[0].to_vector<bool>(), (std::vector<bool>{true, false, false, true}));
}

TEST(EyeLike, BadInputFails) {
  EXPECT_THROW(OpTest("EyeLike").input(f32({3}, {0, 0, 0})).run(), Error);
  EXPECT_THROW(OpTest("EyeLike")
                   .input(f32({1, 1}, {0}))
                   .attr("dtype", static_cast<int64_t>(DataType::String))
                   .run(),
               Error);
}

}  // namespace
}  // namespace kiln::testing
