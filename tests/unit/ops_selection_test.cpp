// Tests of Unique, Compress and ReverseSequence against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// --- Unique ----------------------------------------------------------------------------------

std::vector<int64_t> ints(const Tensor& t) { return t.to_vector<int64_t>(); }

const Tensor kValues = f32({6}, {2, 1, 1, 3, 4, 3});

TEST(Unique, SortedFlattened) {
  auto out = OpTest("Unique", 11).outputs(4).input(kValues).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{2, 1, 2, 1}));
}

TEST(Unique, UnsortedKeepsFirstOccurrenceOrder) {
  auto out = OpTest("Unique", 11).outputs(4).input(kValues).attr("sorted", 0).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST(Unique, RowsAlongAxis0) {
  auto out =
      OpTest("Unique", 11).outputs(4).input(i64({3, 2}, {1, 0, 0, 1, 1, 0})).attr("axis", 0).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{1, 2}));
}

TEST(Unique, ColumnsAlongNegativeAxis) {
  // Columns (1, 0), (1, 0) and (0, 2): sorted, (0, 2) comes first.
  auto out =
      OpTest("Unique", 11).outputs(4).input(f32({2, 3}, {1, 1, 0, 0, 0, 2})).attr("axis", -1).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 1, 2, 0}));
  EXPECT_EQ(ints(out[1]), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(ints(out[2]), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(ints(out[3]), (std::vector<int64_t>{1, 2}));
}

TEST(Unique, StringsAndNaN) {
  auto s = OpTest("Unique", 11).input(Tensor::from_data<std::string>({3}, {"b", "a", "b"})).run();
  EXPECT_EQ(s[0].to_vector<std::string>(), (std::vector<std::string>{"a", "b"}));
  // NaNs count as one value, sorted after the numbers.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto n = OpTest("Unique", 11).outputs(4).input(f32({3}, {nan, 1, nan})).run();
  ASSERT_EQ(n[0].element_count(), 2);
  EXPECT_EQ(n[0].data<float>()[0], 1.0f);
  EXPECT_TRUE(std::isnan(n[0].data<float>()[1]));
  EXPECT_EQ(ints(n[3]), (std::vector<int64_t>{1, 2}));
}

TEST(Unique, ScalarAndEmpty) {
  auto scalar = OpTest("Unique", 11).outputs(4).input(Tensor::scalar<int32_t>(7)).run();
  EXPECT_EQ(scalar[0].shape(), Shape{1});
  EXPECT_EQ(scalar[0].data<int32_t>()[0], 7);
  EXPECT_EQ(ints(scalar[3]), (std::vector<int64_t>{1}));
  auto empty = OpTest("Unique", 11).outputs(4).input(f32({0, 2}, {})).run();
  EXPECT_EQ(empty[0].shape(), Shape{0});
  EXPECT_EQ(empty[2].shape(), Shape{0});
}

TEST(Unique, BadAxis) {
  EXPECT_THROW(OpTest("Unique", 11).input(kValues).attr("axis", 1).run(), Error);
}

// --- Compress --------------------------------------------------------------------------------

Tensor bools(const Shape& shape, std::vector<bool> values) {
  return Tensor::from_data<bool>(shape, values);
}

const Tensor kMatrix = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(Compress, AlongAnAxis) {
  auto cols = OpTest("Compress", 11)
                  .input(kMatrix)
                  .input(bools({3}, {true, false, true}))
                  .attr("axis", 1)
                  .run();
  EXPECT_EQ(cols[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(cols[0].to_vector<float>(), (std::vector<float>{1, 3, 4, 6}));
  auto rows =
      OpTest("Compress", 11).input(kMatrix).input(bools({2}, {false, true})).attr("axis", -2).run();
  EXPECT_EQ(rows[0].to_vector<float>(), (std::vector<float>{4, 5, 6}));
}

TEST(Compress, WithoutAxisFlattensAndAShortConditionDropsTheRest) {
  auto out = OpTest("Compress", 11).input(kMatrix).input(bools({3}, {false, true, true})).run();
  EXPECT_EQ(out[0].shape(), Shape{2});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 3}));
}

TEST(Compress, NothingSelectedAndStrings) {
  auto none =
      OpTest("Compress", 11).input(kMatrix).input(bools({2}, {false, false})).attr("axis", 0).run();
  EXPECT_EQ(none[0].shape(), (Shape{0, 3}));
  auto s = OpTest("Compress", 11)
               .input(Tensor::from_data<std::string>({3}, {"x", "y", "z"}))
               .input(bools({4}, {true, false, true, false}))
               .run();
  EXPECT_EQ(s[0].to_vector<std::string>(), (std::vector<std::string>{"x", "z"}));
}

TEST(Compress, BadInput) {
  // A true beyond the axis, a non-bool condition, a 2-D condition, an axis out of range.
  EXPECT_THROW(OpTest("Compress", 11)
                   .input(kMatrix)
                   .input(bools({3}, {false, false, true}))
                   .attr("axis", 0)
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Compress", 11).input(kMatrix).input(i64({2}, {1, 0})).run(), Error);
  EXPECT_THROW(OpTest("Compress", 11).input(kMatrix).input(bools({1, 2}, {true, true})).run(),
               Error);
  EXPECT_THROW(
      OpTest("Compress", 11).input(kMatrix).input(bools({1}, {true})).attr("axis", 2).run(), Error);
}

// --- ReverseSequence -------------------------------------------------------------------------

TEST(ReverseSequence, TimeMajor) {
  // [time = 3, batch = 2]: batch 0 reverses all three steps, batch 1 its first two.
  auto out = OpTest("ReverseSequence", 10)
                 .input(f32({3, 2}, {1, 10, 2, 20, 3, 30}))
                 .input(i64({2}, {3, 2}))
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 20, 2, 10, 1, 30}));
}

TEST(ReverseSequence, BatchMajorWithInnerDimensions) {
  // [batch = 2, time = 3, 2]: batch 0 reverses two steps, batch 1 none.
  const Tensor x = f32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto out = OpTest("ReverseSequence", 10)
                 .input(x)
                 .input(i64({2}, {2, 0}))
                 .attr("batch_axis", 0)
                 .attr("time_axis", 1)
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(ReverseSequence, StringsAndEmpty) {
  auto s = OpTest("ReverseSequence", 10)
               .input(Tensor::from_data<std::string>({2, 1}, {"a", "b"}))
               .input(i64({1}, {2}))
               .run();
  EXPECT_EQ(s[0].to_vector<std::string>(), (std::vector<std::string>{"b", "a"}));
  auto e = OpTest("ReverseSequence", 10).input(f32({0, 2}, {})).input(i64({2}, {0, 0})).run();
  EXPECT_EQ(e[0].shape(), (Shape{0, 2}));
}

TEST(ReverseSequence, BadInput) {
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(OpTest("ReverseSequence", 10).input(x).input(i64({2}, {4, 1})).run(), Error);
  EXPECT_THROW(OpTest("ReverseSequence", 10).input(x).input(i64({2}, {-1, 1})).run(), Error);
  EXPECT_THROW(OpTest("ReverseSequence", 10).input(x).input(i64({3}, {1, 1, 1})).run(), Error);
  EXPECT_THROW(OpTest("ReverseSequence", 10).input(f32({2}, {1, 2})).input(i64({1}, {1})).run(),
               Error);
  EXPECT_THROW(OpTest("ReverseSequence", 10)
                   .input(x)
                   .input(i64({2}, {1, 1}))
                   .attr("batch_axis", 0)
                   .attr("time_axis", 0)
                   .run(),
               Error);
  EXPECT_THROW(OpTest("ReverseSequence", 10).input(x).input(f32({2}, {1, 1})).run(), Error);
}

}  // namespace
}  // namespace kiln::testing
