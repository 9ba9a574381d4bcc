// Winograd F(4x4, 3x3) against the direct convolution (the loop-nest reference, in double) on
// every SIMD target compiled in and supported here: image sizes that are and are not multiples
// of the 4x4 tile, tile rows narrower and wider than a vector, symmetric, asymmetric and no
// padding, batches, and the fused bias, residual and activations. The tolerance is the one a
// model's outputs must meet: |a - e| <= 1e-4 + 1e-3 |e|.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_winograd.h"
#include "conv_test_operands.h"
#include "hwy/targets.h"

namespace kiln::cpu {
namespace {

using kiln::testing::conv_outputs_match;
using kiln::testing::ConvOperands;
using kiln::testing::random_conv_operands;

struct Case {
  int64_t batch, c, m, h, w, pad_top, pad_left, pad_bottom, pad_right;
};

ConvProblem problem(const Case& t) {
  ConvProblem p;
  p.batch = t.batch;
  p.in_channels = t.c;
  p.out_channels = t.m;
  WindowGeometry& g = p.geometry;
  g.in = {t.h, t.w};
  g.kernel = {3, 3};
  g.stride = {1, 1};
  g.dilation = {1, 1};
  g.pad = {t.pad_top, t.pad_left};
  g.out = {t.h + t.pad_top + t.pad_bottom - 2, t.w + t.pad_left + t.pad_right - 2};
  return p;
}

TEST(ConvWinograd, MatchesTheDirectConvolutionOnEveryTarget) {
  const Case cases[] = {
      {1, 32, 32, 24, 24, 1, 1, 1, 1},  // 6 x 6 tiles
      {2, 40, 36, 26, 27, 1, 1, 1, 1},  // partial tiles at the bottom and right, two images
      {1, 32, 48, 30, 70, 0, 0, 0, 0},  // no padding; tile rows wider than a vector
      {1, 33, 32, 28, 28, 1, 0, 0, 1},  // asymmetric padding, an odd channel count
      {1, 16, 64, 55, 55, 1, 1, 1, 1},  // few input channels (SqueezeNet's first expand)
      {1, 64, 96, 14, 14, 1, 1, 1, 1},  // a 4 x 4 grid of tiles (ResNet-50's 14 x 14 maps)
      {1, 64, 48, 13, 13, 1, 1, 1, 1},  // partial tiles on a 4 x 4 grid (SqueezeNet's 13 x 13)
  };
  std::mt19937 rng(77);
  for (const Case& t : cases) {
    const ConvProblem p = problem(t);
    ASSERT_TRUE(winograd_applies(p)) << "the case must take the Winograd path";
    const ConvOperands o = random_conv_operands(p, rng);
    const size_t y_size = o.expected.size();
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(hwy::TargetName(target));
      const PackedConvWeights packed;
      for (int variant = 0; variant < 3; ++variant) {
        ConvEpilogue e;
        std::vector<float> want = o.expected;
        if (variant >= 1) {
          e.residual = o.residual.data();
          for (size_t i = 0; i < y_size; ++i) want[i] += o.residual[i];
        }
        if (variant == 2) {
          e.activation = FusedActivation::kRelu;
          for (float& v : want) v = v < 0 ? 0.0f : v;
        }
        std::vector<float> y(y_size, std::nanf(""));
        conv_f32(p, o.x.data(), o.w.data(), o.bias.data(), y.data(), &packed, e);
        ASSERT_TRUE(conv_outputs_match(y, want))
            << "case " << t.c << "x" << t.h << "x" << t.w << " variant " << variant;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ConvWinograd, OnlyThreeByThreeStrideOneWithEnoughChannelsAndTiles) {
  ConvProblem p = problem({1, 64, 64, 56, 56, 1, 1, 1, 1});
  EXPECT_TRUE(winograd_applies(p));
  ConvProblem q = p;
  q.geometry.stride = {2, 2};
  EXPECT_FALSE(winograd_applies(q));
  q = p;
  q.geometry.dilation = {2, 2};
  EXPECT_FALSE(winograd_applies(q));
  q = p;
  q.group = 2;
  EXPECT_FALSE(winograd_applies(q));
  q = p;
  q.in_channels = 8;
  EXPECT_FALSE(winograd_applies(q));
  // 7 x 7 maps (ResNet-50's last stage): 4 tiles, mostly padding.
  EXPECT_FALSE(winograd_applies(problem({1, 512, 512, 7, 7, 1, 1, 1, 1})));
  // 14 x 14 (ResNet-50's third stage) and 13 x 13 (SqueezeNet's last fires): a 4 x 4 grid.
  EXPECT_TRUE(winograd_applies(problem({1, 256, 256, 14, 14, 1, 1, 1, 1})));
  EXPECT_TRUE(winograd_applies(problem({1, 64, 256, 13, 13, 1, 1, 1, 1})));
  // 12 x 12 or a 12-wide map: 3 tiles across.
  EXPECT_FALSE(winograd_applies(problem({1, 64, 256, 12, 12, 1, 1, 1, 1})));
  EXPECT_FALSE(winograd_applies(problem({1, 64, 256, 40, 12, 1, 1, 1, 1})));
}

}  // namespace
}  // namespace kiln::cpu
