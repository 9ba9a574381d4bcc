#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::OpTest;

namespace {

template <class T>
Tensor make(const Shape& shape, std::vector<T> values) {
  return Tensor::from_data<T>(shape, values);
}

Tensor cast(const Tensor& x, DataType to, int saturate = 1) {
  return OpTest("Cast")
      .input(x)
      .attr("to", static_cast<int64_t>(to))
      .attr("saturate", saturate)
      .run()[0];
}

}  // namespace

TEST(CastOp, FloatToIntTruncatesTowardsZero) {
  auto out = cast(f32({5}, {1.9f, -1.9f, 0.5f, -0.0f, 100.0f}), DataType::Int32);
  EXPECT_EQ(out.dtype(), DataType::Int32);
  EXPECT_EQ(out.to_vector<int32_t>(), (std::vector<int32_t>{1, -1, 0, 0, 100}));
}

TEST(CastOp, FloatToIntOutOfRangeIsDefined) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto i32 = cast(f32({3}, {nan, 3e9f, -INFINITY}), DataType::Int32);
  EXPECT_EQ(i32.to_vector<int32_t>(), std::vector<int32_t>(3, std::numeric_limits<int32_t>::min()));
  auto i64 = cast(f32({2}, {nan, 1e19f}), DataType::Int64);
  EXPECT_EQ(i64.to_vector<int64_t>(), std::vector<int64_t>(2, std::numeric_limits<int64_t>::min()));
  // Narrow types go through int32 and keep the low bits.
  auto u8 = cast(f32({3}, {-1.0f, 300.0f, 255.9f}), DataType::UInt8);
  EXPECT_EQ(u8.to_vector<uint8_t>(), (std::vector<uint8_t>{255, 44, 255}));
  auto u64 = cast(f32({2}, {1e19f, -1.0f}), DataType::UInt64);
  EXPECT_EQ(u64.to_vector<uint64_t>(),
            (std::vector<uint64_t>{static_cast<uint64_t>(1e19f), UINT64_MAX}));
}

TEST(CastOp, IntegerNarrowingKeepsLowBits) {
  auto out = cast(make<int16_t>({3}, {200, -129, 256}), DataType::Int8);
  EXPECT_EQ(out.to_vector<int8_t>(), (std::vector<int8_t>{-56, 127, 0}));
  auto big = cast(make<int64_t>({1}, {(int64_t{1} << 40) + 7}), DataType::Int32);
  EXPECT_EQ(big.to_vector<int32_t>(), (std::vector<int32_t>{7}));
}

TEST(CastOp, BoolConversions) {
  auto to_bool = cast(f32({4}, {0.0f, -0.0f, 0.1f, NAN}), DataType::Bool);
  const bool* b = to_bool.data<bool>();
  EXPECT_EQ((std::vector<bool>(b, b + 4)), (std::vector<bool>{false, false, true, true}));
  auto from_bool = cast(make<bool>({2}, {true, false}), DataType::Float32);
  EXPECT_EQ(from_bool.to_vector<float>(), (std::vector<float>{1, 0}));
  auto i = cast(make<bool>({2}, {true, false}), DataType::Int64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
}

TEST(CastOp, HalfAndBFloat16RoundToNearestEven) {
  // 1 + 2^-11 is halfway between two float16 values: ties to even (1.0).
  auto h = cast(f32({3}, {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 70000.0f}), DataType::Float16);
  ASSERT_EQ(h.dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[1]), 1.0f + 4.0f / 2048);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[2]), INFINITY);
  auto back = cast(h, DataType::Float32);
  EXPECT_EQ(back.to_vector<float>()[0], 1.0f);
  auto bf = cast(f32({1}, {1.0f + 1.0f / 256}), DataType::BFloat16);
  EXPECT_EQ(static_cast<float>(bf.data<BFloat16>()[0]), 1.0f);
}

TEST(CastOp, DoubleToHalfRoundsOnce) {
  // Just above the float16 halfway point 1 + 2^-11, by less than float32 can hold: a double
  // rounding through float32 would land on the tie and round down to 1.0.
  const double x = 1.0 + 1.0 / 2048 + 1.0 / (1 << 30) / 64;
  auto h = cast(make<double>({1}, {x}), DataType::Float16);
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[0]), 1.0f + 2.0f / 2048);
}

TEST(CastOp, Float8SaturateAttribute) {
  auto sat = cast(f32({3}, {1000.0f, -INFINITY, 0.3f}), DataType::Float8E4M3FN, 1);
  EXPECT_EQ(static_cast<float>(sat.data<Float8E4M3FN>()[0]), 448.0f);
  EXPECT_EQ(static_cast<float>(sat.data<Float8E4M3FN>()[1]), -448.0f);
  auto nosat = cast(f32({1}, {1000.0f}), DataType::Float8E4M3FN, 0);
  EXPECT_TRUE(std::isnan(static_cast<float>(nosat.data<Float8E4M3FN>()[0])));
  auto e5 = cast(f32({1}, {1e6f}), DataType::Float8E5M2, 0);
  EXPECT_EQ(static_cast<float>(e5.data<Float8E5M2>()[0]), INFINITY);
}

TEST(CastOp, SubByteIntegersWrap) {
  auto i4 = cast(f32({4}, {-9, 7, 8, 15}), DataType::Int4);
  std::vector<int> v;
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<int>(i4.data<Int4>()[i]));
  EXPECT_EQ(v, (std::vector<int>{7, 7, -8, -1}));
  auto u2 = cast(make<int32_t>({3}, {-1, 4, 2}), DataType::UInt2);
  EXPECT_EQ(static_cast<int>(u2.data<UInt2>()[0]), 3);
  EXPECT_EQ(static_cast<int>(u2.data<UInt2>()[1]), 0);
  auto back = cast(i4, DataType::Float32);
  EXPECT_EQ(back.to_vector<float>(), (std::vector<float>{7, 7, -8, -1}));
}

TEST(CastOp, E8M0RoundModes) {
  auto run = [](const char* mode) {
    return OpTest("Cast", 25)
        .input(f32({3}, {3.0f, 5.0f, 4.0f}))
        .attr("to", static_cast<int64_t>(DataType::Float8E8M0))
        .attr("round_mode", mode)
        .run()[0];
  };
  auto values = [](const Tensor& t) {
    std::vector<float> v;
    for (int i = 0; i < 3; ++i) v.push_back(static_cast<float>(t.data<Float8E8M0>()[i]));
    return v;
  };
  EXPECT_EQ(values(run("up")), (std::vector<float>{4, 8, 4}));
  EXPECT_EQ(values(run("down")), (std::vector<float>{2, 4, 4}));
  EXPECT_EQ(values(run("nearest")), (std::vector<float>{4, 4, 4}));
  EXPECT_THROW(run("sideways"), Error);
}

TEST(CastOp, StringToNumbers) {
  auto s = make<std::string>({6}, {"3.14", "1e-5", "-INF", "+inf", "NaN", " 1E8 "});
  auto f = cast(s, DataType::Float32).to_vector<float>();
  EXPECT_FLOAT_EQ(f[0], 3.14f);
  EXPECT_FLOAT_EQ(f[1], 1e-5f);
  EXPECT_EQ(f[2], -INFINITY);
  EXPECT_EQ(f[3], INFINITY);
  EXPECT_TRUE(std::isnan(f[4]));
  EXPECT_EQ(f[5], 1e8f);
  auto i = cast(make<std::string>({3}, {"100.5", "-7", "9007199254740993"}), DataType::Int64);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{100, -7, 9007199254740993}));
  auto b = cast(make<std::string>({3}, {"true", "0", "2"}), DataType::Bool);
  EXPECT_EQ((std::vector<bool>(b.data<bool>(), b.data<bool>() + 3)), (std::vector<bool>{1, 0, 1}));
  EXPECT_THROW(cast(make<std::string>({1}, {"Hello World!"}), DataType::Float32), Error);
}

TEST(CastOp, NumbersToString) {
  auto s = cast(f32({5}, {314.25f, 0.1f, -INFINITY, NAN, 1e-5f}), DataType::String);
  EXPECT_EQ(s.to_vector<std::string>(),
            (std::vector<std::string>{"314.25", "0.1", "-INF", "NaN", "1e-05"}));
  auto i = cast(make<int64_t>({2}, {-42, 9007199254740993}), DataType::String);
  EXPECT_EQ(i.to_vector<std::string>(), (std::vector<std::string>{"-42", "9007199254740993"}));
  // A round trip through text keeps every float32 value.
  auto back = cast(cast(f32({2}, {0.3f, 16777217.0f}), DataType::String), DataType::Float32);
  EXPECT_EQ(back.to_vector<float>(), (std::vector<float>{0.3f, 16777217.0f}));
}

TEST(CastOp, SameTypeAndEmpty) {
  auto x = f32({2}, {1, 2});
  EXPECT_EQ(cast(x, DataType::Float32).to_vector<float>(), (std::vector<float>{1, 2}));
  auto e = cast(f32({0, 3}, {}), DataType::Int64);
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.dtype(), DataType::Int64);
}

TEST(CastOp, BadAttributes) {
  EXPECT_THROW(OpTest("Cast").input(f32({1}, {1})).attr("to", int64_t{99}).run(), Error);
  EXPECT_THROW(OpTest("Cast").input(f32({1}, {1})).run(), Error);
  EXPECT_THROW(cast(f32({1}, {1}), DataType::Complex64), Error);
}

TEST(CastLikeOp, TakesTargetTypeFromSecondInput) {
  auto out =
      OpTest("CastLike").input(f32({3}, {1.5f, -2.5f, 3})).input(make<int32_t>({1}, {0})).run();
  EXPECT_EQ(out[0].dtype(), DataType::Int32);
  EXPECT_EQ(out[0].to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3}));
  auto nosat = OpTest("CastLike")
                   .input(f32({1}, {1e6f}))
                   .input(Tensor::from_data<Float8E4M3FN>({1}, {Float8E4M3FN(1.0f)}))
                   .attr("saturate", 0)
                   .run();
  EXPECT_TRUE(std::isnan(static_cast<float>(nosat[0].data<Float8E4M3FN>()[0])));
}

// --- BitCast ---------------------------------------------------------------------------------

namespace {

OpTest bit_cast(const Tensor& x, DataType to) {
  OpTest t("BitCast", 26);
  t.input(x).attr("to", static_cast<int64_t>(to));
  return t;
}

TEST(BitCast, KeepsTheBitsAndTheShape) {
  // 1.0f is 0x3F800000, -2.0f is 0xC0000000.
  auto out = bit_cast(f32({2, 1}, {1.0f, -2.0f}), DataType::Int32).run();
  EXPECT_EQ(out[0].dtype(), DataType::Int32);
  EXPECT_EQ(out[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(out[0].to_vector<int32_t>(),
            (std::vector<int32_t>{0x3F800000, static_cast<int32_t>(0xC0000000u)}));
  auto scalar = bit_cast(Tensor::scalar<uint16_t>(0x3C00), DataType::Float16).run();
  EXPECT_EQ(scalar[0].shape(), Shape{});
  EXPECT_EQ(static_cast<float>(scalar[0].data<Float16>()[0]), 1.0f);
  auto wide = bit_cast(make<int64_t>({1}, {-1}), DataType::UInt64).run();
  EXPECT_EQ(wide[0].data<uint64_t>()[0], UINT64_MAX);
}

TEST(BitCast, BoolAndBytes) {
  auto to_bytes = bit_cast(make<bool>({3}, {true, false, true}), DataType::UInt8).run();
  EXPECT_EQ(to_bytes[0].to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  auto to_bool = bit_cast(make<int8_t>({2}, {0, 1}), DataType::Bool).run();
  EXPECT_EQ(to_bool[0].data<bool>()[0], false);
  EXPECT_EQ(to_bool[0].data<bool>()[1], true);
}

TEST(BitCast, FourBitTypesReinterpretTheirNibble) {
  // Int4 -1 is the nibble 0b1111: 15 as UInt4, and -8 is 0b1000: 8.
  auto out = bit_cast(make<Int4>({2}, {Int4(-1), Int4(-8)}), DataType::UInt4).run();
  EXPECT_EQ(static_cast<int>(out[0].data<UInt4>()[0]), 15);
  EXPECT_EQ(static_cast<int>(out[0].data<UInt4>()[1]), 8);
  auto back = bit_cast(make<UInt4>({1}, {UInt4(9)}), DataType::Int4).run();
  EXPECT_EQ(static_cast<int>(back[0].data<Int4>()[0]), -7);
  // Float4E2M1 0b0010 is 1.0.
  auto f4 = bit_cast(make<UInt4>({1}, {UInt4(2)}), DataType::Float4E2M1).run();
  EXPECT_EQ(static_cast<float>(f4[0].data<Float4E2M1>()[0]), 1.0f);
}

TEST(BitCast, EmptyTensor) {
  auto out = bit_cast(f32({0, 3}, {}), DataType::UInt32).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));
  EXPECT_EQ(out[0].dtype(), DataType::UInt32);
}

TEST(BitCast, BadInput) {
  EXPECT_THROW(bit_cast(f32({1}, {1}), DataType::Float64).run(), Error);
  EXPECT_THROW(bit_cast(f32({1}, {1}), DataType::String).run(), Error);
  EXPECT_THROW(bit_cast(make<Int4>({1}, {Int4(1)}), DataType::Int8).run(), Error);
  EXPECT_THROW(OpTest("BitCast", 26).input(f32({1}, {1})).attr("to", int64_t{99}).run(), Error);
  EXPECT_THROW(OpTest("BitCast", 26).input(f32({1}, {1})).run(), Error);
}

}  // namespace
