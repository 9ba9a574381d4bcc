// Tests of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against hand-computed
// values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kiln/error.h"
#include "quantization_test_util.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using namespace quant;

// --- QuantizeLinear ---------------------------------------------------------------------------

TEST(QuantizeLinear, PerTensorUint8SaturatesToRange) {
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({6}, {0, 2, 3, 1000, -254, -1000}))
                 .input(scalar_f32(2))
                 .input(Tensor::scalar<uint8_t>(128))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::UInt8);
  EXPECT_EQ(ints(out[0]), (Ints{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeLinear, RoundsHalfToEven) {
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({6}, {1, 3, 5, -1, -3, -5}))
                 .input(scalar_f32(2))
                 .input(Tensor::scalar<int8_t>(0))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{0, 2, 2, 0, -2, -2}));
}

TEST(QuantizeLinear, RoundsBeforeAddingAnOddZeroPoint) {
  // 2.5 rounds to 2, then + 1: 3 (rounding 3.5 would give 4).
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({2}, {2.5f, 0.5f}))
                 .input(scalar_f32(1))
                 .input(Tensor::scalar<uint8_t>(1))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{3, 1}));
}

TEST(QuantizeLinear, WithoutZeroPointGivesUint8) {
  auto out = OpTest("QuantizeLinear", 13).input(f32({3}, {-1, 1, 600})).input(scalar_f32(1)).run();
  EXPECT_EQ(out[0].dtype(), DataType::UInt8);
  EXPECT_EQ(ints(out[0]), (Ints{0, 1, 255}));
}

TEST(QuantizeLinear, NaNGivesTheLowestValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({2}, {nan, 4}))
                 .input(scalar_f32(1))
                 .input(Tensor::scalar<int8_t>(3))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{-128, 7}));
}

TEST(QuantizeLinear, PerAxisScalesAndZeroPoints) {
  // x [2, 3], one scale per column (axis 1, the default).
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({2, 3}, {2, 4, 6, -2, -4, -6}))
                 .input(f32({3}, {1, 2, 3}))
                 .input(s8({3}, {0, 10, -10}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(out[0]), (Ints{2, 12, -8, -2, 8, -12}));
}

TEST(QuantizeLinear, NegativeAxis) {
  auto out = OpTest("QuantizeLinear", 13)
                 .input(f32({2, 2}, {4, 4, 4, 4}))
                 .input(f32({2}, {1, 4}))
                 .attr("axis", -2)
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{4, 4, 1, 1}));
}

TEST(QuantizeLinear, BlockedWithAPartialLastBlock) {
  // Axis 1 of length 5 in blocks of 2: blocks {0, 1}, {2, 3}, {4}.
  auto out = OpTest("QuantizeLinear", 21)
                 .input(f32({2, 5}, {2, 2, 2, 2, 2, 8, 8, 8, 8, 8}))
                 .input(f32({2, 3}, {1, 2, 0.5f, 2, 4, 8}))
                 .input(u8({2, 3}, {0, 1, 2, 3, 4, 5}))
                 .attr("axis", 1)
                 .attr("block_size", 2)
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{2, 2, 2, 2, 6, 7, 7, 6, 6, 6}));
}

TEST(QuantizeLinear, BlockedShapeMismatchIsAnError) {
  EXPECT_THROW(OpTest("QuantizeLinear", 21)
                   .input(f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}))
                   .input(f32({2, 3}, {1, 1, 1, 1, 1, 1}))
                   .attr("block_size", 2)
                   .run(),
               Error);
}

TEST(QuantizeLinear, OutputDtypeSmallIntegersSaturate) {
  const Tensor x = f32({5}, {-100, -2, 0.4f, 1.6f, 100});
  auto int4 = OpTest("QuantizeLinear", 21)
                  .input(x)
                  .input(scalar_f32(1))
                  .attr("output_dtype", static_cast<int64_t>(DataType::Int4))
                  .run();
  EXPECT_EQ(int4[0].dtype(), DataType::Int4);
  EXPECT_EQ(ints(int4[0]), (Ints{-8, -2, 0, 2, 7}));
  auto uint4 = OpTest("QuantizeLinear", 21)
                   .input(x)
                   .input(scalar_f32(1))
                   .attr("output_dtype", static_cast<int64_t>(DataType::UInt4))
                   .run();
  EXPECT_EQ(ints(uint4[0]), (Ints{0, 0, 0, 2, 15}));
  auto int2 = OpTest("QuantizeLinear", 25)
                  .input(x)
                  .input(scalar_f32(1))
                  .attr("output_dtype", static_cast<int64_t>(DataType::Int2))
                  .run();
  EXPECT_EQ(ints(int2[0]), (Ints{-2, -2, 0, 1, 1}));
  auto uint2 = OpTest("QuantizeLinear", 25)
                   .input(x)
                   .input(scalar_f32(1))
                   .input(Tensor::scalar<UInt2>(UInt2(1)))
                   .run();
  EXPECT_EQ(ints(uint2[0]), (Ints{0, 0, 1, 3, 3}));
}

TEST(QuantizeLinear, Int16AndUint16) {
  auto s = OpTest("QuantizeLinear", 21)
               .input(f32({3}, {-70000, 1.5f, 70000}))
               .input(scalar_f32(1))
               .input(Tensor::scalar<int16_t>(0))
               .run();
  EXPECT_EQ(ints(s[0]), (Ints{-32768, 2, 32767}));
  auto u = OpTest("QuantizeLinear", 21)
               .input(f32({3}, {-1, 2.5f, 70000}))
               .input(scalar_f32(1))
               .input(Tensor::scalar<uint16_t>(1))
               .run();
  EXPECT_EQ(ints(u[0]), (Ints{0, 3, 65535}));
}

TEST(QuantizeLinear, Float8SaturatesUnlessToldNotTo) {
  const Tensor x = f32({3}, {1, -1000, 1000});
  const Tensor zp = Tensor::scalar<Float8E4M3FN>(Float8E4M3FN(0.0f));
  auto sat = OpTest("QuantizeLinear", 21).input(x).input(scalar_f32(2)).input(zp).run();
  const auto v = sat[0].to_vector<Float8E4M3FN>();
  EXPECT_EQ(static_cast<float>(v[0]), 0.5f);
  EXPECT_EQ(static_cast<float>(v[1]), -448.0f);
  EXPECT_EQ(static_cast<float>(v[2]), 448.0f);
  auto nosat = OpTest("QuantizeLinear", 21)
                   .input(x)
                   .input(scalar_f32(2))
                   .input(zp)
                   .attr("saturate", 0)
                   .run();
  EXPECT_TRUE(std::isnan(static_cast<float>(nosat[0].to_vector<Float8E4M3FN>()[2])));
  // E5M2 has an infinity: without saturation an overflow becomes it.
  auto e5m2 = OpTest("QuantizeLinear", 21)
                  .input(f32({1}, {1e6f}))
                  .input(scalar_f32(1))
                  .input(Tensor::scalar<Float8E5M2>(Float8E5M2(0.0f)))
                  .attr("saturate", 0)
                  .run();
  EXPECT_TRUE(std::isinf(static_cast<float>(e5m2[0].to_vector<Float8E5M2>()[0])));
}

TEST(QuantizeLinear, Float8ZeroPointMustBeZero) {
  EXPECT_THROW(OpTest("QuantizeLinear", 21)
                   .input(f32({1}, {1}))
                   .input(scalar_f32(1))
                   .input(Tensor::scalar<Float8E4M3FN>(Float8E4M3FN(1.0f)))
                   .run(),
               Error);
}

TEST(QuantizeLinear, Float4AddsItsZeroPoint) {
  auto out = OpTest("QuantizeLinear", 23)
                 .input(f32({4}, {-0.0f, 2.5f, 100, 1}))
                 .input(scalar_f32(1))
                 .input(Tensor::scalar<Float4E2M1>(Float4E2M1(0.0f)))
                 .run();
  const auto v = out[0].to_vector<Float4E2M1>();
  EXPECT_EQ(v[0].bits, 0);                    // -0 + 0 is +0
  EXPECT_EQ(static_cast<float>(v[1]), 2.0f);  // 2.5 ties to even between 2 and 3
  EXPECT_EQ(static_cast<float>(v[2]), 6.0f);
  EXPECT_EQ(static_cast<float>(v[3]), 1.0f);
}

TEST(QuantizeLinear, PrecisionRoundsTheDivision) {
  // 2049 is not a float16: with float16 precision it becomes 2048 before dividing.
  const Tensor x = f32({1}, {2049});
  auto f16 = OpTest("QuantizeLinear", 23)
                 .input(x)
                 .input(scalar_f32(1))
                 .input(Tensor::scalar<int16_t>(0))
                 .attr("precision", static_cast<int64_t>(DataType::Float16))
                 .run();
  EXPECT_EQ(ints(f16[0]), (Ints{2048}));
  auto f32p = OpTest("QuantizeLinear", 23)
                  .input(x)
                  .input(scalar_f32(1))
                  .input(Tensor::scalar<int16_t>(0))
                  .run();
  EXPECT_EQ(ints(f32p[0]), (Ints{2049}));
}

TEST(QuantizeLinear, Float16Input) {
  auto out = OpTest("QuantizeLinear", 21)
                 .input(make<Float16>({2}, {Float16(3.0f), Float16(-7.0f)}))
                 .input(Tensor::scalar<Float16>(Float16(2.0f)))
                 .input(Tensor::scalar<int8_t>(0))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{2, -4}));
}

TEST(QuantizeLinear, EmptyInput) {
  auto out = OpTest("QuantizeLinear", 21)
                 .input(f32({0, 3}, {}))
                 .input(f32({3}, {1, 2, 3}))
                 .input(u8({3}, {1, 2, 3}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 3}));
}

TEST(QuantizeLinear, BadParametersAreErrors) {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // Scale length does not match the axis.
  EXPECT_THROW(OpTest("QuantizeLinear", 13).input(x).input(f32({2}, {1, 1})).run(), Error);
  // Axis out of range.
  EXPECT_THROW(
      OpTest("QuantizeLinear", 13).input(x).input(f32({3}, {1, 1, 1})).attr("axis", 2).run(),
      Error);
  // Zero point type disagrees with output_dtype.
  EXPECT_THROW(OpTest("QuantizeLinear", 21)
                   .input(x)
                   .input(scalar_f32(1))
                   .input(Tensor::scalar<uint8_t>(0))
                   .attr("output_dtype", static_cast<int64_t>(DataType::Int8))
                   .run(),
               Error);
  // Not a quantized type.
  EXPECT_THROW(OpTest("QuantizeLinear", 21)
                   .input(x)
                   .input(scalar_f32(1))
                   .attr("output_dtype", static_cast<int64_t>(DataType::Float32))
                   .run(),
               Error);
  // Zero point shaped differently from the scale.
  EXPECT_THROW(
      OpTest("QuantizeLinear", 13).input(x).input(f32({3}, {1, 1, 1})).input(u8({2}, {0, 0})).run(),
      Error);
}

// --- DequantizeLinear -------------------------------------------------------------------------

TEST(DequantizeLinear, PerTensorUint8) {
  auto out = OpTest("DequantizeLinear", 13)
                 .input(u8({4}, {0, 3, 128, 255}))
                 .input(scalar_f32(2))
                 .input(Tensor::scalar<uint8_t>(128))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Float32);
  EXPECT_EQ(out[0].to_vector<float>(), (Floats{-256, -250, 0, 254}));
}

TEST(DequantizeLinear, PerAxisAndBlocked) {
  auto axis = OpTest("DequantizeLinear", 13)
                  .input(s8({2, 2}, {1, 2, 3, 4}))
                  .input(f32({2}, {1, 10}))
                  .input(s8({2}, {0, 1}))
                  .attr("axis", 0)
                  .run();
  EXPECT_EQ(axis[0].to_vector<float>(), (Floats{1, 2, 20, 30}));
  auto blocked = OpTest("DequantizeLinear", 21)
                     .input(s8({1, 3}, {1, 2, 3}))
                     .input(f32({1, 2}, {2, 3}))
                     .attr("axis", 1)
                     .attr("block_size", 2)
                     .run();
  EXPECT_EQ(blocked[0].to_vector<float>(), (Floats{2, 4, 9}));
}

TEST(DequantizeLinear, SmallIntegerTypes) {
  auto int4 = OpTest("DequantizeLinear", 21)
                  .input(make<Int4>({3}, {Int4(-8), Int4(0), Int4(7)}))
                  .input(scalar_f32(0.5f))
                  .input(Tensor::scalar<Int4>(Int4(1)))
                  .run();
  EXPECT_EQ(int4[0].to_vector<float>(), (Floats{-4.5f, -0.5f, 3}));
  auto uint2 = OpTest("DequantizeLinear", 25)
                   .input(make<UInt2>({2}, {UInt2(0), UInt2(3)}))
                   .input(scalar_f32(1))
                   .run();
  EXPECT_EQ(uint2[0].to_vector<float>(), (Floats{0, 3}));
  auto int32 =
      OpTest("DequantizeLinear", 13).input(s32({2}, {-1000000, 7})).input(scalar_f32(2)).run();
  EXPECT_EQ(int32[0].to_vector<float>(), (Floats{-2000000, 14}));
}

TEST(DequantizeLinear, Float8KeepsNegativeZero) {
  auto out = OpTest("DequantizeLinear", 21)
                 .input(make<Float8E4M3FN>(
                     {3}, {Float8E4M3FN(-0.0f), Float8E4M3FN(448.0f), Float8E4M3FN(-1.5f)}))
                 .input(scalar_f32(2))
                 .input(Tensor::scalar<Float8E4M3FN>(Float8E4M3FN(0.0f)))
                 .run();
  const auto v = out[0].to_vector<float>();
  EXPECT_TRUE(std::signbit(v[0]));
  EXPECT_EQ(v[1], 896.0f);
  EXPECT_EQ(v[2], -3.0f);
}

TEST(DequantizeLinear, OutputTypeFollowsScaleOrOutputDtype) {
  auto half = OpTest("DequantizeLinear", 21)
                  .input(u8({2}, {1, 2}))
                  .input(Tensor::scalar<Float16>(Float16(0.5f)))
                  .run();
  EXPECT_EQ(half[0].dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(half[0].to_vector<Float16>()[1]), 1.0f);
  auto bf16 = OpTest("DequantizeLinear", 23)
                  .input(u8({2}, {1, 2}))
                  .input(scalar_f32(0.5f))
                  .attr("output_dtype", static_cast<int64_t>(DataType::BFloat16))
                  .run();
  EXPECT_EQ(bf16[0].dtype(), DataType::BFloat16);
  EXPECT_EQ(static_cast<float>(bf16[0].to_vector<BFloat16>()[0]), 0.5f);
}

TEST(DequantizeLinear, EmptyAndErrors) {
  auto out = OpTest("DequantizeLinear", 13).input(u8({0}, {})).input(scalar_f32(1)).run();
  EXPECT_EQ(out[0].shape(), (Shape{0}));
  EXPECT_THROW(OpTest("DequantizeLinear", 13)
                   .input(u8({2}, {1, 2}))
                   .input(scalar_f32(1))
                   .input(Tensor::scalar<int8_t>(0))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("DequantizeLinear", 13).input(f32({2}, {1, 2})).input(scalar_f32(1)).run(),
               Error);
  EXPECT_THROW(OpTest("DequantizeLinear", 21)
                   .input(make<Float8E4M3FN>({1}, {Float8E4M3FN(1.0f)}))
                   .input(scalar_f32(1))
                   .input(Tensor::scalar<Float8E4M3FN>(Float8E4M3FN(2.0f)))
                   .run(),
               Error);
}

// --- DynamicQuantizeLinear --------------------------------------------------------------------

TEST(DynamicQuantizeLinear, RangeIncludesZero) {
  auto out = OpTest("DynamicQuantizeLinear", 11)
                 .outputs(3)
                 .input(f32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}))
                 .run();
  EXPECT_FLOAT_EQ(out[1].to_vector<float>()[0], 5.0f / 255.0f);
  EXPECT_EQ(ints(out[2]), (Ints{153}));
  EXPECT_EQ(ints(out[0]), (Ints{153, 255, 0, 26, 221, 179}));
}

TEST(DynamicQuantizeLinear, AllZeroAndEmpty) {
  auto zeros = OpTest("DynamicQuantizeLinear", 11).outputs(3).input(f32({2}, {0, 0})).run();
  EXPECT_EQ(zeros[1].to_vector<float>()[0], 1.0f);
  EXPECT_EQ(ints(zeros[2]), (Ints{0}));
  EXPECT_EQ(ints(zeros[0]), (Ints{0, 0}));
  auto empty = OpTest("DynamicQuantizeLinear", 11).outputs(3).input(f32({0, 2}, {})).run();
  EXPECT_EQ(empty[0].shape(), (Shape{0, 2}));
  EXPECT_THROW(OpTest("DynamicQuantizeLinear", 11).outputs(3).input(u8({1}, {1})).run(), Error);
}

TEST(DynamicQuantizeLinear, BothInfinities) {
  // inf / inf made a NaN zero point, converted to uint8 with undefined behaviour.
  const float inf = std::numeric_limits<float>::infinity();
  auto out = OpTest("DynamicQuantizeLinear", 11).outputs(3).input(f32({3}, {inf, -inf, 1})).run();
  EXPECT_EQ(ints(out[2]), (Ints{0}));
}

}  // namespace
}  // namespace kiln::testing
