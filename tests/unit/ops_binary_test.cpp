#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::i64;
using kiln::testing::OpTest;

namespace {

template <class T>
Tensor make(const Shape& shape, std::vector<T> values) {
  return Tensor::from_data<T>(shape, values);
}

std::vector<bool> bools(const Tensor& t) {
  const bool* p = t.data<bool>();
  return std::vector<bool>(p, p + t.element_count());
}

}  // namespace

TEST(BinaryOps, AddSameShape) {
  auto out =
      OpTest("Add").input(f32({2, 2}, {1, 2, 3, 4})).input(f32({2, 2}, {10, 20, 30, 40})).run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{11, 22, 33, 44}));
}

TEST(BinaryOps, BroadcastPatterns) {
  // Scalar on either side.
  auto s = OpTest("Sub").input(f32({}, {10})).input(f32({3}, {1, 2, 3})).run();
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{9, 8, 7}));
  // Row vector [3] against [2, 3].
  auto r = OpTest("Add").input(f32({2, 3}, {0, 0, 0, 1, 1, 1})).input(f32({3}, {1, 2, 3})).run();
  EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 2, 3, 4}));
  // Per-channel [C, 1, 1] against [N, C, H, W].
  std::vector<float> x(2 * 3 * 2 * 2, 1.0f);
  auto c = OpTest("Mul").input(f32({2, 3, 2, 2}, x)).input(f32({3, 1, 1}, {1, 2, 3})).run();
  std::vector<float> expected;
  for (int n = 0; n < 2; ++n)
    for (int ch = 0; ch < 3; ++ch)
      for (int i = 0; i < 4; ++i) expected.push_back(static_cast<float>(ch + 1));
  EXPECT_EQ(c[0].shape(), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(c[0].to_vector<float>(), expected);
  // Both operands broadcast: [3, 1] against [1, 4].
  auto o = OpTest("Add").input(f32({3, 1}, {0, 10, 20})).input(f32({1, 4}, {1, 2, 3, 4})).run();
  EXPECT_EQ(o[0].shape(), (Shape{3, 4}));
  EXPECT_EQ(o[0].to_vector<float>(),
            (std::vector<float>{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24}));
}

TEST(BinaryOps, LargeBroadcastMatchesNaive) {
  // Big enough to be split over threads; a middle-dimension broadcast.
  const int64_t N = 4, C = 3, H = 100, W = 70;
  std::vector<float> a(N * C * H * W), b(C * W);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i);
  auto out = OpTest("Sub").input(f32({N, C, H, W}, a)).input(f32({C, 1, W}, b)).run();
  const float* p = out[0].data<float>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          const int64_t i = ((n * C + c) * H + h) * W + w;
          ASSERT_EQ(p[i], a[i] - b[c * W + w]) << i;
        }
}

TEST(BinaryOps, EmptyAndIncompatibleShapes) {
  auto out = OpTest("Add").input(f32({0, 3}, {})).input(f32({3}, {1, 2, 3})).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));
  EXPECT_THROW(OpTest("Add").input(f32({2}, {1, 2})).input(f32({3}, {1, 2, 3})).run(), Error);
  EXPECT_THROW(OpTest("Add").input(f32({2}, {1, 2})).input(i64({2}, {1, 2})).run(), Error);
}

TEST(BinaryOps, IntegerArithmeticWrapsAndTruncates) {
  auto add =
      OpTest("Add").input(make<int8_t>({2}, {127, -128})).input(make<int8_t>({2}, {1, -1})).run();
  EXPECT_EQ(add[0].to_vector<int8_t>(), (std::vector<int8_t>{-128, 127}));
  auto mul =
      OpTest("Mul").input(make<uint16_t>({1}, {65535})).input(make<uint16_t>({1}, {65535})).run();
  EXPECT_EQ(mul[0].to_vector<uint16_t>(), (std::vector<uint16_t>{1}));
  auto div = OpTest("Div")
                 .input(make<int32_t>({4}, {7, -7, 7, std::numeric_limits<int32_t>::min()}))
                 .input(make<int32_t>({4}, {2, 2, -2, -1}))
                 .run();
  EXPECT_EQ(div[0].to_vector<int32_t>(),
            (std::vector<int32_t>{3, -3, -3, std::numeric_limits<int32_t>::min()}));
  EXPECT_THROW(
      OpTest("Div").input(make<int32_t>({2}, {1, 2})).input(make<int32_t>({2}, {1, 0})).run(),
      Error);
  // Float division by zero is IEEE.
  auto fdiv = OpTest("Div").input(f32({2}, {1, -1})).input(f32({2}, {0, 0})).run();
  EXPECT_EQ(fdiv[0].to_vector<float>(), (std::vector<float>{INFINITY, -INFINITY}));
}

TEST(BinaryOps, Float16ComputesThroughFloat) {
  auto h = [](float v) { return Float16(v); };
  auto out = OpTest("Add")
                 .input(make<Float16>({2}, {h(1.5f), h(2.0f)}))
                 .input(make<Float16>({2}, {h(0.25f), h(-4.0f)}))
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(out[0].data<Float16>()[0]), 1.75f);
  EXPECT_EQ(static_cast<float>(out[0].data<Float16>()[1]), -2.0f);
}

TEST(BinaryOps, ModSignRules) {
  auto a = make<int32_t>({4}, {5, -5, 5, -5});
  auto b = make<int32_t>({4}, {3, 3, -3, -3});
  auto py = OpTest("Mod").input(a).input(b).run();
  EXPECT_EQ(py[0].to_vector<int32_t>(), (std::vector<int32_t>{2, 1, -1, -2}));
  auto c = OpTest("Mod").input(a).input(b).attr("fmod", 1).run();
  EXPECT_EQ(c[0].to_vector<int32_t>(), (std::vector<int32_t>{2, -2, 2, -2}));
  auto f =
      OpTest("Mod").input(f32({2}, {5.5f, -5.5f})).input(f32({2}, {2, 2})).attr("fmod", 1).run();
  EXPECT_EQ(f[0].to_vector<float>(), (std::vector<float>{1.5f, -1.5f}));
  EXPECT_THROW(OpTest("Mod").input(f32({1}, {1})).input(f32({1}, {2})).run(), Error);
  EXPECT_THROW(OpTest("Mod").input(a).input(make<int32_t>({1}, {0})).run(), Error);
}

TEST(BinaryOps, PowMixedTypes) {
  auto p = OpTest("Pow").input(f32({3}, {2, 3, 4})).input(make<int64_t>({3}, {2, 3, -1})).run();
  EXPECT_EQ(p[0].dtype(), DataType::Float32);
  EXPECT_EQ(p[0].to_vector<float>(), (std::vector<float>{4, 27, 0.25f}));
  auto q = OpTest("Pow").input(make<int32_t>({3}, {2, -3, 2})).input(f32({3}, {3, 2, 0.5f})).run();
  EXPECT_EQ(q[0].dtype(), DataType::Int32);
  EXPECT_EQ(q[0].to_vector<int32_t>(), (std::vector<int32_t>{8, 9, 1}));
  auto r = OpTest("Pow")
               .input(make<int64_t>({3}, {3, -1, 5}))
               .input(make<int64_t>({3}, {4, 3, -1}))
               .run();
  EXPECT_EQ(r[0].to_vector<int64_t>(), (std::vector<int64_t>{81, -1, 0}));
}

TEST(BinaryOps, PowConstantExponentFastPath) {
  auto sq =
      OpTest("Pow").input(f32({3}, {-3, 0.5f, 2})).input(f32({}, {2})).constant_input(1).run();
  EXPECT_EQ(sq[0].to_vector<float>(), (std::vector<float>{9, 0.25f, 4}));
  auto rt = OpTest("Pow")
                .input(f32({3}, {4, -0.0f, -INFINITY}))
                .input(f32({}, {0.5f}))
                .constant_input(1)
                .run();
  const float* v = rt[0].data<float>();
  EXPECT_EQ(v[0], 2.0f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_FALSE(std::signbit(v[1]));
  EXPECT_EQ(v[2], INFINITY);
}

TEST(BinaryOps, BitShift) {
  auto l = OpTest("BitShift")
               .input(make<uint8_t>({3}, {1, 255, 3}))
               .input(make<uint8_t>({3}, {3, 1, 8}))
               .attr("direction", "LEFT")
               .run();
  EXPECT_EQ(l[0].to_vector<uint8_t>(), (std::vector<uint8_t>{8, 254, 0}));
  auto r = OpTest("BitShift")
               .input(make<uint64_t>({2}, {16, 1}))
               .input(make<uint64_t>({1}, {2}))
               .attr("direction", "RIGHT")
               .run();
  EXPECT_EQ(r[0].to_vector<uint64_t>(), (std::vector<uint64_t>{4, 0}));
  EXPECT_THROW(OpTest("BitShift")
                   .input(make<uint8_t>({1}, {1}))
                   .input(make<uint8_t>({1}, {1}))
                   .attr("direction", "UP")
                   .run(),
               Error);
  EXPECT_THROW(OpTest("BitShift")
                   .input(make<int32_t>({1}, {1}))
                   .input(make<int32_t>({1}, {1}))
                   .attr("direction", "LEFT")
                   .run(),
               Error);
}

TEST(BinaryOps, LogicAndBitwise) {
  auto t = make<bool>({4}, {true, true, false, false});
  auto u = make<bool>({4}, {true, false, true, false});
  EXPECT_EQ(bools(OpTest("And").input(t).input(u).run()[0]), (std::vector<bool>{1, 0, 0, 0}));
  EXPECT_EQ(bools(OpTest("Or").input(t).input(u).run()[0]), (std::vector<bool>{1, 1, 1, 0}));
  EXPECT_EQ(bools(OpTest("Xor").input(t).input(u).run()[0]), (std::vector<bool>{0, 1, 1, 0}));
  EXPECT_THROW(OpTest("And").input(f32({1}, {1})).input(f32({1}, {1})).run(), Error);
  auto a = make<int16_t>({2}, {0x0F0F, -1});
  auto b = make<int16_t>({1}, {0x00FF});
  EXPECT_EQ(OpTest("BitwiseAnd").input(a).input(b).run()[0].to_vector<int16_t>(),
            (std::vector<int16_t>{0x000F, 0x00FF}));
  EXPECT_EQ(OpTest("BitwiseOr").input(a).input(b).run()[0].to_vector<int16_t>(),
            (std::vector<int16_t>{0x0FFF, -1}));
  EXPECT_EQ(OpTest("BitwiseXor").input(a).input(b).run()[0].to_vector<int16_t>(),
            (std::vector<int16_t>{0x0FF0, -256}));
}

TEST(BinaryOps, Comparisons) {
  auto a = f32({4}, {1, 2, 3, NAN});
  auto b = f32({}, {2});
  EXPECT_EQ(bools(OpTest("Less").input(a).input(b).run()[0]), (std::vector<bool>{1, 0, 0, 0}));
  EXPECT_EQ(bools(OpTest("LessOrEqual").input(a).input(b).run()[0]),
            (std::vector<bool>{1, 1, 0, 0}));
  EXPECT_EQ(bools(OpTest("Greater").input(a).input(b).run()[0]), (std::vector<bool>{0, 0, 1, 0}));
  EXPECT_EQ(bools(OpTest("GreaterOrEqual").input(a).input(b).run()[0]),
            (std::vector<bool>{0, 1, 1, 0}));
  EXPECT_EQ(bools(OpTest("Equal").input(a).input(b).run()[0]), (std::vector<bool>{0, 1, 0, 0}));
  auto u = make<uint64_t>({2}, {UINT64_MAX, 0});
  EXPECT_EQ(bools(OpTest("Greater").input(u).input(make<uint64_t>({1}, {1})).run()[0]),
            (std::vector<bool>{1, 0}));
}

TEST(BinaryOps, EqualStringsAndBools) {
  auto s = make<std::string>({3}, {"a", "bc", ""});
  auto t = make<std::string>({1}, {"bc"});
  EXPECT_EQ(bools(OpTest("Equal").input(s).input(t).run()[0]), (std::vector<bool>{0, 1, 0}));
  auto b = make<bool>({2}, {true, false});
  EXPECT_EQ(bools(OpTest("Equal").input(b).input(make<bool>({1}, {false})).run()[0]),
            (std::vector<bool>{0, 1}));
  EXPECT_THROW(OpTest("Less").input(s).input(t).run(), Error);
}

TEST(VariadicOps, MinMaxSumMean) {
  auto a = f32({3}, {1, 5, 3});
  auto b = f32({1}, {2});
  auto c = f32({2, 1}, {0, 10});
  auto mx = OpTest("Max").input(a).input(b).input(c).run();
  EXPECT_EQ(mx[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(mx[0].to_vector<float>(), (std::vector<float>{2, 5, 3, 10, 10, 10}));
  auto mn = OpTest("Min").input(a).input(b).run();
  EXPECT_EQ(mn[0].to_vector<float>(), (std::vector<float>{1, 2, 2}));
  auto sum = OpTest("Sum").input(a).input(b).input(c).run();
  EXPECT_EQ(sum[0].to_vector<float>(), (std::vector<float>{3, 7, 5, 13, 17, 15}));
  auto mean = OpTest("Mean").input(a).input(f32({3}, {3, 1, 3})).run();
  EXPECT_EQ(mean[0].to_vector<float>(), (std::vector<float>{2, 3, 3}));
  auto one = OpTest("Sum").input(a).run();
  EXPECT_EQ(one[0].to_vector<float>(), (std::vector<float>{1, 5, 3}));
  auto ints =
      OpTest("Max").input(make<int64_t>({2}, {-5, 7})).input(make<int64_t>({2}, {3, 2})).run();
  EXPECT_EQ(ints[0].to_vector<int64_t>(), (std::vector<int64_t>{3, 7}));
}

TEST(VariadicOps, NanPropagatesAndBadInput) {
  auto mn = OpTest("Min").input(f32({2}, {NAN, 1})).input(f32({2}, {0, NAN})).run();
  EXPECT_TRUE(std::isnan(mn[0].data<float>()[0]));
  EXPECT_TRUE(std::isnan(mn[0].data<float>()[1]));
  EXPECT_THROW(OpTest("Max").input(f32({2}, {1, 2})).input(i64({2}, {1, 2})).run(), Error);
  EXPECT_THROW(OpTest("Sum").input(f32({2}, {1, 2})).input(f32({3}, {1, 2, 3})).run(), Error);
  EXPECT_THROW(OpTest("Mean").input(i64({2}, {1, 2})).input(i64({2}, {1, 2})).run(), Error);
}
