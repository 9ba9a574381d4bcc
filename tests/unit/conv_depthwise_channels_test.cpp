// The channel-vectorised depthwise kernel for small maps against the loop-nest reference (in
// double), through conv_f32 on every SIMD target compiled in and supported here: 3x3 and 5x5,
// strides 1 and 2, "same", no and asymmetric padding, channel counts that do and do not fill
// the last vector, rows that do and do not fill the last output block, two images, with and
// without a bias, and the fused residual and activations. The tolerance is the one a model's
// outputs must meet: |a - e| <= 1e-4 + 1e-3 |e|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu/conv_depthwise_channels.h"
#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_reference.h"
#include "conv_test_operands.h"
#include "hwy/targets.h"

namespace kiln::cpu {
namespace {

using kiln::testing::conv_outputs_match;
using kiln::testing::ConvOperands;
using kiln::testing::random_conv_operands;

struct Case {
  int64_t batch, channels, h, w, k, stride, pad_top, pad_left, pad_bottom, pad_right;
};

ConvProblem problem(const Case& t) {
  ConvProblem p;
  p.batch = t.batch;
  p.in_channels = t.channels;
  p.out_channels = t.channels;
  p.group = t.channels;
  WindowGeometry& g = p.geometry;
  g.in = {t.h, t.w};
  g.kernel = {t.k, t.k};
  g.stride = {t.stride, t.stride};
  g.dilation = {1, 1};
  g.pad = {t.pad_top, t.pad_left};
  g.out = {(t.h + t.pad_top + t.pad_bottom - t.k) / t.stride + 1,
           (t.w + t.pad_left + t.pad_right - t.k) / t.stride + 1};
  return p;
}

TEST(DepthwiseChannels, MatchesTheReferenceOnEveryTarget) {
  const Case cases[] = {
      {1, 40, 7, 7, 3, 1, 1, 1, 1, 1},    // MobileNetV2's last stage (40: 2.5 AVX-512 vectors)
      {2, 19, 7, 7, 5, 1, 2, 2, 2, 2},    // EfficientNet-B0's 5x5 on 7 x 7, two images
      {1, 33, 14, 14, 5, 2, 1, 1, 2, 2},  // 14 -> 7 at stride 2, padding as PyTorch's "same"
      {1, 17, 14, 14, 3, 2, 0, 0, 1, 1},  // asymmetric padding
      {1, 24, 14, 14, 5, 1, 2, 2, 2, 2},  // 5x5 over 14 x 14: whole output blocks and a rest
      {1, 5, 9, 6, 3, 1, 0, 0, 0, 0},     // no padding, a 4-wide output, fewer channels than lanes
  };
  std::mt19937 rng(53);
  for (const Case& t : cases) {
    const ConvProblem p = problem(t);
    ASSERT_TRUE(depthwise_channels_applies(p.geometry)) << "the case must take the channel path";
    const ConvOperands o = random_conv_operands(p, rng);
    const size_t y_size = o.expected.size();
    std::vector<float> unbiased(y_size);
    conv_reference<float, double>(p, o.x.data(), o.w.data(), nullptr, unbiased.data());
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(hwy::TargetName(target));
      for (int variant = 0; variant < 4; ++variant) {
        ConvEpilogue e;
        const float* b = variant == 1 ? nullptr : o.bias.data();
        std::vector<float> want = variant == 1 ? unbiased : o.expected;
        if (variant == 2) {
          e.activation = FusedActivation::kClip;
          e.clip_min = 0.0f;
          e.clip_max = 0.5f;
          for (float& v : want) v = std::min(std::max(v, 0.0f), 0.5f);
        }
        if (variant == 3) {
          e.residual = o.residual.data();
          e.activation = FusedActivation::kSilu;
          for (size_t i = 0; i < y_size; ++i) {
            const float v = want[i] + o.residual[i];
            want[i] = v / (1.0f + std::exp(-v));
          }
        }
        std::vector<float> y(y_size, std::nanf(""));
        conv_f32(p, o.x.data(), o.w.data(), b, y.data(), nullptr, e);
        ASSERT_TRUE(conv_outputs_match(y, want))
            << "case " << t.channels << "x" << t.h << "x" << t.w << " k" << t.k << " s" << t.stride
            << " variant " << variant;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(DepthwiseChannels, OnlySmallMapsWhereItPays) {
  EXPECT_TRUE(depthwise_channels_applies(problem({1, 960, 7, 7, 3, 1, 1, 1, 1, 1}).geometry));
  EXPECT_TRUE(depthwise_channels_applies(problem({1, 672, 14, 14, 5, 1, 2, 2, 2, 2}).geometry));
  // 3x3 over 14 x 14 (the row kernel's vectors are nearly full) and anything from 28 x 28 on.
  EXPECT_FALSE(depthwise_channels_applies(problem({1, 384, 14, 14, 3, 1, 1, 1, 1, 1}).geometry));
  EXPECT_FALSE(depthwise_channels_applies(problem({1, 672, 28, 28, 5, 2, 2, 2, 2, 2}).geometry));
  // Kernels other than 3x3 and 5x5, and dilation.
  EXPECT_FALSE(depthwise_channels_applies(problem({1, 64, 7, 7, 7, 1, 3, 3, 3, 3}).geometry));
  ConvProblem dilated = problem({1, 64, 7, 7, 3, 1, 2, 2, 2, 2});
  dilated.geometry.dilation = {2, 2};
  EXPECT_FALSE(depthwise_channels_applies(dilated.geometry));
}

}  // namespace
}  // namespace kiln::cpu
