#include <gtest/gtest.h>

#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::i64;
using kiln::testing::OpTest;

namespace {

std::vector<float> iota_f(int64_t n, float start = 0) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

}  // namespace

TEST(Concat, MiddleAxisAndNegativeAxis) {
  auto a = f32({2, 1, 2}, {0, 1, 2, 3});
  auto b = f32({2, 2, 2}, {10, 11, 12, 13, 14, 15, 16, 17});
  auto out = OpTest("Concat").input(a).input(b).attr("axis", -2).run()[0];
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(out.to_vector<float>(),
            (std::vector<float>{0, 1, 10, 11, 12, 13, 2, 3, 14, 15, 16, 17}));
}

TEST(Concat, EmptyInputsStringsAndErrors) {
  auto e = Tensor::zeros(DataType::Float32, {0, 2});
  auto a = f32({1, 2}, {1, 2});
  auto out = OpTest("Concat").input(e).input(a).input(e).attr("axis", 0).run()[0];
  EXPECT_EQ(out.shape(), (Shape{1, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1, 2}));
  auto s1 = Tensor::from_data<std::string>({1}, {"x"});
  auto s2 = Tensor::from_data<std::string>({2}, {"y", "z"});
  EXPECT_EQ(OpTest("Concat").input(s1).input(s2).attr("axis", 0).run()[0].to_vector<std::string>(),
            (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_THROW(OpTest("Concat").input(a).input(f32({1, 3}, {1, 2, 3})).attr("axis", 0).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Concat").input(a).input(i64({1, 2}, {1, 2})).attr("axis", 0).run(),
               kiln::Error);
  EXPECT_THROW(OpTest("Concat").input(a).attr("axis", 2).run(), kiln::Error);
  EXPECT_THROW(OpTest("Concat").input(a).run(), kiln::Error);  // axis is required
}

TEST(Split, SplitInputAttributeAndEqualParts) {
  auto x = f32({2, 5}, iota_f(10));
  auto parts = OpTest("Split").input(x).input(i64({2}, {2, 3})).attr("axis", 1).outputs(2).run();
  EXPECT_EQ(parts[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(parts[0].to_vector<float>(), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(parts[1].to_vector<float>(), (std::vector<float>{2, 3, 4, 7, 8, 9}));
  auto old = OpTest("Split", 11)
                 .input(x)
                 .attr("axis", -1)
                 .attr("split", std::vector<int64_t>{4, 1})
                 .outputs(2)
                 .run();
  EXPECT_EQ(old[1].to_vector<float>(), (std::vector<float>{4, 9}));
  auto rows = OpTest("Split", 13).input(x).outputs(2).run();
  EXPECT_EQ(rows[1].to_vector<float>(), iota_f(5, 5));
  EXPECT_THROW(OpTest("Split", 13).input(x).attr("axis", 1).outputs(2).run(), kiln::Error);
}

TEST(Split, NumOutputsUnevenAndZeroSizes) {
  auto x = f32({7}, iota_f(7));
  auto parts = OpTest("Split", 18).input(x).attr("num_outputs", 3).outputs(3).run();
  EXPECT_EQ(parts[0].to_vector<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(parts[1].to_vector<float>(), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(parts[2].to_vector<float>(), (std::vector<float>{6}));
  auto zeros = OpTest("Split").input(x).input(i64({3}, {0, 7, 0})).outputs(3).run();
  EXPECT_EQ(zeros[0].shape(), (Shape{0}));
  EXPECT_EQ(zeros[1].to_vector<float>(), iota_f(7));
  EXPECT_THROW(OpTest("Split").input(x).input(i64({2}, {3, 3})).outputs(2).run(), kiln::Error);
  EXPECT_THROW(OpTest("Split").input(x).input(i64({2}, {8, -1})).outputs(2).run(), kiln::Error);
  EXPECT_THROW(OpTest("Split", 18).input(x).attr("num_outputs", 2).outputs(3).run(), kiln::Error);
  auto s = Tensor::from_data<std::string>({3}, {"a", "b", "c"});
  auto sp = OpTest("Split").input(s).input(i64({2}, {1, 2})).outputs(2).run();
  EXPECT_EQ(sp[1].to_vector<std::string>(), (std::vector<std::string>{"b", "c"}));
}

TEST(Slice, StepsAxesAndClamping) {
  auto x = f32({3, 4}, iota_f(12));
  auto out = OpTest("Slice")
                 .input(x)
                 .input(i64({2}, {1, 0}))
                 .input(i64({2}, {1000, 10}))
                 .input(i64({2}, {0, 1}))
                 .input(i64({2}, {1, 2}))
                 .run()[0];
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{4, 6, 8, 10}));
  // Negative steps and bounds: whole reversed columns.
  auto rev = OpTest("Slice")
                 .input(x)
                 .input(i64({1}, {-1}))
                 .input(i64({1}, {INT64_MIN}))
                 .input(i64({1}, {-1}))
                 .input(i64({1}, {-1}))
                 .run()[0];
  EXPECT_EQ(rev.shape(), (Shape{3, 4}));
  EXPECT_EQ(rev.to_vector<float>()[0], 3.0f);
  EXPECT_EQ(rev.to_vector<float>()[3], 0.0f);
  // Start past the end: empty.
  auto empty = OpTest("Slice").input(x).input(i64({1}, {5})).input(i64({1}, {10})).run()[0];
  EXPECT_EQ(empty.shape(), (Shape{0, 4}));
  // Huge step: one element.
  auto one = OpTest("Slice")
                 .input(x)
                 .input(i64({1}, {0}))
                 .input(i64({1}, {4}))
                 .input(i64({1}, {1}))
                 .input(i64({1}, {INT64_MAX}))
                 .run()[0];
  EXPECT_EQ(one.to_vector<float>(), (std::vector<float>{0, 4, 8}));
}

TEST(Slice, Opset1AttributesInt32AndErrors) {
  auto x = Tensor::from_data<int32_t>({5}, {0, 1, 2, 3, 4});
  auto out = OpTest("Slice", 1)
                 .input(x)
                 .attr("starts", std::vector<int64_t>{1})
                 .attr("ends", std::vector<int64_t>{-1})
                 .run()[0];
  EXPECT_EQ(out.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3}));
  auto i32 = OpTest("Slice")
                 .input(x)
                 .input(Tensor::from_data<int32_t>({1}, {3}))
                 .input(Tensor::from_data<int32_t>({1}, {0}))
                 .input(Tensor())
                 .input(Tensor::from_data<int32_t>({1}, {-2}))
                 .run()[0];
  EXPECT_EQ(i32.to_vector<int32_t>(), (std::vector<int32_t>{3, 1}));
  EXPECT_THROW(OpTest("Slice")
                   .input(x)
                   .input(i64({1}, {0}))
                   .input(i64({1}, {2}))
                   .input(i64({1}, {0}))
                   .input(i64({1}, {0}))
                   .run(),
               kiln::Error);  // step 0
  EXPECT_THROW(
      OpTest("Slice").input(x).input(i64({1}, {0})).input(i64({1}, {2})).input(i64({1}, {1})).run(),
      kiln::Error);  // axis out of range
  EXPECT_THROW(OpTest("Slice").input(x).input(i64({2}, {0, 0})).input(i64({1}, {2})).run(),
               kiln::Error);  // length mismatch
  auto e = OpTest("Slice")
               .input(Tensor::zeros(DataType::Float32, {0, 2}))
               .input(i64({1}, {-1}))
               .input(i64({1}, {-10}))
               .input(i64({1}, {0}))
               .input(i64({1}, {-1}))
               .run()[0];
  EXPECT_EQ(e.shape(), (Shape{0, 2}));
}
