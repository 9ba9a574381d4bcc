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

TEST(Gather, AxisAndNegativeIndices) {
  auto data = f32({3, 2}, {0, 1, 2, 3, 4, 5});
  auto rows = OpTest("Gather").input(data).input(i64({2, 2}, {0, 1, -1, 0})).run()[0];
  EXPECT_EQ(rows.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 0, 1}));
  auto cols = OpTest("Gather")
                  .input(data)
                  .input(Tensor::from_data<int32_t>({3}, {1, -2, 1}))
                  .attr("axis", 1)
                  .run()[0];
  EXPECT_EQ(cols.shape(), (Shape{3, 3}));
  EXPECT_EQ(cols.to_vector<float>(), (std::vector<float>{1, 0, 1, 3, 2, 3, 5, 4, 5}));
  auto scalar = OpTest("Gather").input(data).input(Tensor::scalar<int64_t>(2)).run()[0];
  EXPECT_EQ(scalar.shape(), (Shape{2}));
  EXPECT_EQ(scalar.to_vector<float>(), (std::vector<float>{4, 5}));
}

TEST(Gather, LargeStringsEmptyAndErrors) {
  const int64_t n = 200000;
  auto data = f32({n}, iota_f(n));
  std::vector<int64_t> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = n - 1 - i;
  auto rev = OpTest("Gather").input(data).input(i64({n}, idx)).run()[0].to_vector<float>();
  EXPECT_EQ(rev[0], static_cast<float>(n - 1));
  EXPECT_EQ(rev[n - 1], 0.0f);
  auto s = Tensor::from_data<std::string>({3}, {"a", "b", "c"});
  EXPECT_EQ(OpTest("Gather").input(s).input(i64({2}, {2, 2})).run()[0].to_vector<std::string>(),
            (std::vector<std::string>{"c", "c"}));
  EXPECT_EQ(OpTest("Gather").input(s).input(i64({0}, {})).run()[0].shape(), (Shape{0}));
  try {
    OpTest("Gather").input(s).input(i64({1}, {3})).run();
    FAIL() << "expected an error";
  } catch (const kiln::Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(OpTest("Gather").input(s).input(i64({1}, {-4})).run(), kiln::Error);
  EXPECT_THROW(OpTest("Gather").input(s).input(f32({1}, {0})).run(), kiln::Error);
}

TEST(GatherElements, BothAxes) {
  auto data = f32({2, 2}, {1, 2, 3, 4});
  auto a1 = OpTest("GatherElements")
                .input(data)
                .input(i64({2, 2}, {0, 0, 1, 0}))
                .attr("axis", 1)
                .run()[0];
  EXPECT_EQ(a1.to_vector<float>(), (std::vector<float>{1, 1, 4, 3}));
  auto a0 = OpTest("GatherElements").input(data).input(i64({1, 2}, {1, -2})).run()[0];
  EXPECT_EQ(a0.shape(), (Shape{1, 2}));
  EXPECT_EQ(a0.to_vector<float>(), (std::vector<float>{3, 2}));
  EXPECT_THROW(OpTest("GatherElements").input(data).input(i64({2, 1}, {0, 2})).run(), kiln::Error);
  EXPECT_THROW(OpTest("GatherElements").input(data).input(i64({2}, {0, 1})).run(), kiln::Error);
  EXPECT_THROW(
      OpTest("GatherElements").input(data).input(i64({3, 1}, {0, 0, 0})).attr("axis", 1).run(),
      kiln::Error);
}

TEST(GatherND, BatchDims) {
  auto data = Tensor::from_data<int32_t>({2, 2}, {0, 1, 2, 3});
  auto el = OpTest("GatherND").input(data).input(i64({2, 2}, {0, 0, 1, 1})).run()[0];
  EXPECT_EQ(el.to_vector<int32_t>(), (std::vector<int32_t>{0, 3}));
  auto rows = OpTest("GatherND").input(data).input(i64({2, 1}, {1, -2})).run()[0];
  EXPECT_EQ(rows.shape(), (Shape{2, 2}));
  EXPECT_EQ(rows.to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 0, 1}));
  auto d3 = Tensor::from_data<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto b1 = OpTest("GatherND").input(d3).input(i64({2, 1}, {1, 0})).attr("batch_dims", 1).run()[0];
  EXPECT_EQ(b1.shape(), (Shape{2, 2}));
  EXPECT_EQ(b1.to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 4, 5}));
  EXPECT_THROW(OpTest("GatherND").input(data).input(i64({1, 2}, {0, 2})).run(), kiln::Error);
  EXPECT_THROW(OpTest("GatherND").input(data).input(i64({1, 3}, {0, 0, 0})).run(), kiln::Error);
  EXPECT_THROW(
      OpTest("GatherND").input(d3).input(i64({3, 1}, {0, 0, 0})).attr("batch_dims", 1).run(),
      kiln::Error);
}

TEST(ScatterElements, ReductionsAndDuplicates) {
  auto data = f32({1, 5}, {1, 2, 3, 4, 5});
  auto idx = i64({1, 3}, {1, 3, 1});
  auto upd = f32({1, 3}, {10, 20, 30});
  auto run = [&](const char* reduction) {
    return OpTest("ScatterElements")
        .input(data)
        .input(idx)
        .input(upd)
        .attr("axis", 1)
        .attr("reduction", reduction)
        .run()[0]
        .to_vector<float>();
  };
  EXPECT_EQ(run("none"), (std::vector<float>{1, 30, 3, 20, 5}));
  EXPECT_EQ(run("add"), (std::vector<float>{1, 42, 3, 24, 5}));
  EXPECT_EQ(run("mul"), (std::vector<float>{1, 600, 3, 80, 5}));
  EXPECT_EQ(run("max"), (std::vector<float>{1, 30, 3, 20, 5}));
  EXPECT_EQ(run("min"), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_THROW(run("sum"), kiln::Error);
}

TEST(ScatterElements, TypesAxis0AndErrors) {
  auto data = Tensor::from_data<int8_t>({3, 2}, {0, 0, 0, 0, 0, 0});
  auto out = OpTest("ScatterElements")
                 .input(data)
                 .input(i64({1, 2}, {2, -3}))
                 .input(Tensor::from_data<int8_t>({1, 2}, {100, 100}))
                 .attr("reduction", "add")
                 .run()[0];
  EXPECT_EQ(out.to_vector<int8_t>(), (std::vector<int8_t>{0, 100, 0, 0, 100, 0}));
  auto s = Tensor::from_data<std::string>({2}, {"a", "b"});
  auto so = OpTest("ScatterElements")
                .input(s)
                .input(i64({1}, {1}))
                .input(Tensor::from_data<std::string>({1}, {"z"}))
                .run()[0];
  EXPECT_EQ(so.to_vector<std::string>(), (std::vector<std::string>{"a", "z"}));
  EXPECT_THROW(OpTest("ScatterElements")
                   .input(s)
                   .input(i64({1}, {1}))
                   .input(Tensor::from_data<std::string>({1}, {"z"}))
                   .attr("reduction", "add")
                   .run(),
               kiln::Error);
  EXPECT_THROW(OpTest("ScatterElements")
                   .input(s)
                   .input(i64({1}, {2}))
                   .input(Tensor::from_data<std::string>({1}, {"z"}))
                   .run(),
               kiln::Error);
  EXPECT_THROW(OpTest("ScatterElements")
                   .input(s)
                   .input(i64({1}, {0}))
                   .input(Tensor::from_data<std::string>({2}, {"z", "y"}))
                   .run(),
               kiln::Error);
  // The deprecated Scatter is ScatterElements without reduction.
  auto old = OpTest("Scatter", 10)
                 .input(f32({3}, {0, 0, 0}))
                 .input(i64({2}, {2, 0}))
                 .input(f32({2}, {7, 8}))
                 .run()[0];
  EXPECT_EQ(old.to_vector<float>(), (std::vector<float>{8, 0, 7}));
}

TEST(ScatterND, SlicesElementsAndReductions) {
  auto data = f32({4, 2}, iota_f(8));
  auto rows = OpTest("ScatterND")
                  .input(data)
                  .input(i64({2, 1}, {3, -4}))
                  .input(f32({2, 2}, {10, 11, 12, 13}))
                  .run()[0];
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{12, 13, 2, 3, 4, 5, 10, 11}));
  auto el = OpTest("ScatterND")
                .input(data)
                .input(i64({2, 2}, {1, 1, 1, 1}))
                .input(f32({2}, {5, 6}))
                .attr("reduction", "mul")
                .run()[0];
  EXPECT_EQ(el.to_vector<float>()[3], 3.0f * 5 * 6);
  auto mx = OpTest("ScatterND")
                .input(Tensor::from_data<int64_t>({3}, {1, 5, 9}))
                .input(i64({2, 1}, {0, 2}))
                .input(Tensor::from_data<int64_t>({2}, {4, 4}))
                .attr("reduction", "max")
                .run()[0];
  EXPECT_EQ(mx.to_vector<int64_t>(), (std::vector<int64_t>{4, 5, 9}));
  EXPECT_THROW(
      OpTest("ScatterND").input(data).input(i64({1, 1}, {4})).input(f32({1, 2}, {0, 0})).run(),
      kiln::Error);
  EXPECT_THROW(
      OpTest("ScatterND").input(data).input(i64({1, 1}, {0})).input(f32({1, 3}, {0, 0, 0})).run(),
      kiln::Error);
}
