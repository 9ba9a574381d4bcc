// Tests of the quantized products (QLinearMatMul, ConvInteger, QLinearConv) against
// hand-computed values and, for the convolution geometry, the float Conv.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kiln/error.h"
#include "quantization_test_util.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using namespace quant;

// --- QLinearMatMul ----------------------------------------------------------------------------

OpTest qlinear_matmul(const Tensor& a, const Tensor& a_scale, const Tensor& a_zp, const Tensor& b,
                      const Tensor& b_scale, const Tensor& b_zp, const Tensor& y_scale,
                      const Tensor& y_zp) {
  OpTest t("QLinearMatMul", 21);
  for (const Tensor* in : {&a, &a_scale, &a_zp, &b, &b_scale, &b_zp, &y_scale, &y_zp}) {
    t.input(*in);
  }
  return t;
}

TEST(QLinearMatMul, RequantizesTheIntegerProduct) {
  // (a - 1) = [[1, 2], [3, 4]], b - 0 = [[1, 0], [1, 1]]: product [[3, 2], [7, 4]];
  // times 0.5 * 2 / 4 = 0.25: [[0.75, 0.5], [1.75, 1]] -> [[1, 0], [2, 1]] (0.5 rounds to 0),
  // plus 10.
  auto out = qlinear_matmul(u8({2, 2}, {2, 3, 4, 5}), scalar_f32(0.5f), Tensor::scalar<uint8_t>(1),
                            s8({2, 2}, {1, 0, 1, 1}), scalar_f32(2), Tensor::scalar<int8_t>(0),
                            scalar_f32(4), Tensor::scalar<int8_t>(10))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Int8);
  EXPECT_EQ(ints(out[0]), (Ints{11, 10, 12, 11}));
}

TEST(QLinearMatMul, LongSumsWrapAsInt32) {
  // 40000 * 255 * 255 = 2601000000 wraps to a negative int32 (as ONNX's int32 accumulation
  // does; it used to be a signed overflow), which saturates to 0.
  constexpr int64_t k = 40000;
  auto out = qlinear_matmul(u8({1, k}, std::vector<uint8_t>(k, 255)), scalar_f32(1),
                            Tensor::scalar<uint8_t>(0), u8({k, 1}, std::vector<uint8_t>(k, 255)),
                            scalar_f32(1), Tensor::scalar<uint8_t>(0), scalar_f32(1),
                            Tensor::scalar<uint8_t>(0))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{0}));
}

TEST(QLinearMatMul, BatchesBroadcastAndOutputSaturates) {
  // a [2, 1, 2] against one b [2, 1].
  auto out = qlinear_matmul(s8({2, 1, 2}, {100, 100, -100, 1}), scalar_f32(1),
                            Tensor::scalar<int8_t>(0), s8({2, 1}, {1, 1}), scalar_f32(1),
                            Tensor::scalar<int8_t>(0), scalar_f32(1), Tensor::scalar<int8_t>(0))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(ints(out[0]), (Ints{127, -99}));
}

TEST(QLinearMatMul, PerColumnScaleOfB) {
  auto out = qlinear_matmul(u8({1, 2}, {1, 1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                            u8({2, 2}, {1, 1, 1, 1}), f32({2}, {1, 3}), u8({2}, {0, 0}),
                            scalar_f32(1), Tensor::scalar<uint8_t>(0))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{2, 6}));
}

TEST(QLinearMatMul, Float16Scales) {
  auto h = [](float v) { return Tensor::scalar<Float16>(Float16(v)); };
  auto out = qlinear_matmul(u8({1, 1}, {10}), h(0.5f), Tensor::scalar<uint8_t>(0), u8({1, 1}, {3}),
                            h(1), Tensor::scalar<uint8_t>(0), h(1), Tensor::scalar<uint8_t>(0))
                 .run();
  EXPECT_EQ(ints(out[0]), (Ints{15}));
}

TEST(QLinearMatMul, Errors) {
  // Inner dimensions differ.
  EXPECT_THROW(qlinear_matmul(u8({1, 2}, {1, 1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                              u8({3, 1}, {1, 1, 1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                              scalar_f32(1), Tensor::scalar<uint8_t>(0))
                   .run(),
               Error);
  // Zero point type differs from its operand.
  EXPECT_THROW(qlinear_matmul(u8({1, 1}, {1}), scalar_f32(1), Tensor::scalar<int8_t>(0),
                              u8({1, 1}, {1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                              scalar_f32(1), Tensor::scalar<uint8_t>(0))
                   .run(),
               Error);
  // Float operands.
  EXPECT_THROW(qlinear_matmul(f32({1, 1}, {1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                              u8({1, 1}, {1}), scalar_f32(1), Tensor::scalar<uint8_t>(0),
                              scalar_f32(1), Tensor::scalar<uint8_t>(0))
                   .run(),
               Error);
}

// --- ConvInteger and QLinearConv --------------------------------------------------------------

TEST(ConvInteger, SubtractsZeroPoints) {
  // x - 1 = [[1..9]] as 3x3, a 2x2 kernel of ones: window sums.
  auto out = OpTest("ConvInteger", 10)
                 .input(u8({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10}))
                 .input(u8({1, 1, 2, 2}, {1, 1, 1, 1}))
                 .input(Tensor::scalar<uint8_t>(1))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Int32);
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(ints(out[0]), (Ints{12, 16, 24, 28}));
}

TEST(ConvInteger, PaddingIsTheZeroPointAndWeightsPerChannel) {
  // One pixel 7 (zero point 5: value 2) padded by 1; w - zw is 1 for channel 0, -1 for 1.
  auto out = OpTest("ConvInteger", 10)
                 .input(u8({1, 1, 1, 1}, {7}))
                 .input(s8({2, 1, 1, 1}, {3, 3}))
                 .input(Tensor::scalar<uint8_t>(5))
                 .input(s8({2}, {2, 4}))
                 .attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 3, 3}));
  EXPECT_EQ(ints(out[0]), (Ints{0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0, 0}));
}

// Against the float Conv on the shifted values (exact: every sum is far below 2^24), with
// groups, strides, dilations and asymmetric pads exercising the column matrix.
TEST(ConvInteger, MatchesFloatConvOnShiftedValues) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  const Shape xs{2, 4, 7, 6}, wsh{6, 2, 3, 2};
  std::vector<int8_t> x(static_cast<size_t>(xs.element_count())), w(wsh.element_count());
  for (auto& v : x) v = static_cast<int8_t>(byte(rng));
  for (auto& v : w) v = static_cast<int8_t>(byte(rng));
  const int8_t zx = 3;
  const std::vector<int8_t> zw{-1, 0, 2, 5, -7, 1};
  std::vector<float> xf, wf;
  for (int8_t v : x) xf.push_back(v - zx);
  for (size_t i = 0; i < w.size(); ++i) wf.push_back(w[i] - zw[i / 12]);
  auto with_attrs = [](OpTest t) {
    return t.attr("group", 2)
        .attr("strides", std::vector<int64_t>{2, 1})
        .attr("dilations", std::vector<int64_t>{1, 2})
        .attr("pads", std::vector<int64_t>{1, 0, 2, 3});
  };
  auto q = with_attrs(OpTest("ConvInteger", 10))
               .input(s8(xs, x))
               .input(s8(wsh, w))
               .input(Tensor::scalar<int8_t>(zx))
               .input(s8({6}, zw))
               .run();
  auto f = with_attrs(OpTest("Conv", 11)).input(f32(xs, xf)).input(f32(wsh, wf)).run();
  ASSERT_EQ(q[0].shape(), f[0].shape());
  const auto fv = f[0].to_vector<float>();
  const auto qv = ints(q[0]);
  for (size_t i = 0; i < fv.size(); ++i) ASSERT_EQ(qv[i], static_cast<int>(fv[i])) << i;
}

TEST(ConvInteger, Errors) {
  EXPECT_THROW(OpTest("ConvInteger", 10)
                   .input(f32({1, 1, 2, 2}, {1, 2, 3, 4}))
                   .input(f32({1, 1, 1, 1}, {1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("ConvInteger", 10)
                   .input(u8({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}))
                   .input(u8({1, 1, 1, 1}, {1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("ConvInteger", 10)
                   .input(u8({1, 1, 2, 2}, {1, 2, 3, 4}))
                   .input(u8({2, 1, 1, 1}, {1, 1}))
                   .input(Tensor::scalar<uint8_t>(0))
                   .input(u8({3}, {0, 0, 0}))
                   .run(),
               Error);
}

TEST(ConvInteger, EmptyZeroPointIsAnError) {
  // A [0] zero point once passed as "one per channel" and element 0 of nothing was read.
  EXPECT_THROW(OpTest("ConvInteger", 10)
                   .input(u8({1, 1, 2, 2}, {1, 2, 3, 4}))
                   .input(u8({1, 1, 1, 1}, {1}))
                   .input(u8({0}, {}))
                   .run(),
               Error);
  // group 2^62 times w's 4 channels wrapped to x's 0 channels.
  EXPECT_THROW(OpTest("ConvInteger", 10)
                   .input(u8({1, 0, 2, 2}, {}))
                   .input(u8({0, 4, 1, 1}, {}))
                   .attr("group", int64_t{1} << 62)
                   .run(),
               Error);
}

OpTest qlinear_conv(const Tensor& x, float x_scale, const Tensor& x_zp, const Tensor& w,
                    const Tensor& w_scale, const Tensor& w_zp, float y_scale, const Tensor& y_zp) {
  OpTest t("QLinearConv", 10);
  t.input(x).input(scalar_f32(x_scale)).input(x_zp).input(w).input(w_scale).input(w_zp);
  t.input(scalar_f32(y_scale)).input(y_zp);
  return t;
}

TEST(QLinearConv, RequantizesWithBias) {
  // (x - 10) * 2 = [0, 20, 40, 60]; + B 4; times 0.5 * 1 / 1; + 5.
  auto out = qlinear_conv(u8({1, 1, 2, 2}, {10, 20, 30, 40}), 0.5f, Tensor::scalar<uint8_t>(10),
                          s8({1, 1, 1, 1}, {2}), f32({1}, {1}), s8({1}, {0}), 1.0f,
                          Tensor::scalar<uint8_t>(5))
                 .input(s32({1}, {4}))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::UInt8);
  EXPECT_EQ(ints(out[0]), (Ints{7, 17, 27, 37}));
}

TEST(QLinearConv, PerChannelWeightScalesAndSaturation) {
  auto out = qlinear_conv(u8({1, 1, 1, 2}, {100, 200}), 1.0f, Tensor::scalar<uint8_t>(0),
                          s8({2, 1, 1, 1}, {1, 1}), f32({2}, {1, 0.25f}), s8({2}, {0, 0}), 1.0f,
                          Tensor::scalar<int8_t>(0))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Int8);
  EXPECT_EQ(ints(out[0]), (Ints{100, 127, 25, 50}));
}

TEST(QLinearConv, Errors) {
  // w_scale has neither one value nor one per output channel.
  EXPECT_THROW(
      qlinear_conv(u8({1, 1, 1, 1}, {1}), 1.0f, Tensor::scalar<uint8_t>(0), s8({1, 1, 1, 1}, {1}),
                   f32({2}, {1, 1}), s8({1}, {0}), 1.0f, Tensor::scalar<uint8_t>(0))
          .run(),
      Error);
  // A bias of the wrong type.
  EXPECT_THROW(
      qlinear_conv(u8({1, 1, 1, 1}, {1}), 1.0f, Tensor::scalar<uint8_t>(0), s8({1, 1, 1, 1}, {1}),
                   f32({1}, {1}), s8({1}, {0}), 1.0f, Tensor::scalar<uint8_t>(0))
          .input(f32({1}, {1}))
          .run(),
      Error);
}

}  // namespace
}  // namespace kiln::testing
