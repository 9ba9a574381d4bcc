// The direct convolution for few input channels against the loop-nest reference (in double),
// on every SIMD target compiled in and supported here: the first convs of MobileNetV2,
// SqueezeNet and ResNet-50 on smaller images, strides 1 and 2 (mixed too), symmetric,
// asymmetric and no padding, output rows that are and are not whole vectors, output channels
// that do and do not fill a register tile, batches, and the fused bias, residual and
// activations. The tolerance is the one a model's outputs must meet: |a - e| <= 1e-4 + 1e-3 |e|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu/conv_direct.h"
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
  int64_t batch, c, m, h, w, kh, kw, sh, sw, pad_top, pad_left, pad_bottom, pad_right;
};

ConvProblem problem(const Case& t) {
  ConvProblem p;
  p.batch = t.batch;
  p.in_channels = t.c;
  p.out_channels = t.m;
  WindowGeometry& g = p.geometry;
  g.in = {t.h, t.w};
  g.kernel = {t.kh, t.kw};
  g.stride = {t.sh, t.sw};
  g.dilation = {1, 1};
  g.pad = {t.pad_top, t.pad_left};
  g.out = {(t.h + t.pad_top + t.pad_bottom - t.kh) / t.sh + 1,
           (t.w + t.pad_left + t.pad_right - t.kw) / t.sw + 1};
  return p;
}

TEST(ConvDirect, MatchesTheReferenceOnEveryTarget) {
  const Case cases[] = {
      {1, 3, 32, 45, 64, 3, 3, 2, 2, 1, 1, 1, 1},  // MobileNetV2's first conv
      {1, 3, 64, 47, 61, 3, 3, 2, 2, 0, 0, 0, 0},  // SqueezeNet's: no padding, odd sizes
      {1, 3, 64, 38, 70, 7, 7, 2, 2, 3, 3, 3, 3},  // ResNet-50's 7 x 7
      {2, 1, 5, 20, 37, 3, 3, 1, 1, 1, 1, 1, 1},   // one channel, 5 outputs (a tile and one)
      {1, 4, 12, 9, 50, 2, 5, 1, 2, 0, 2, 1, 0},   // mixed strides, asymmetric padding
      {1, 2, 8, 6, 16, 1, 1, 1, 1, 0, 0, 0, 0},    // 1x1, a row of exactly 16
      {1, 3, 9, 23, 200, 3, 3, 2, 1, 2, 0, 0, 3},  // wide rows, padding at the top and right only
  };
  std::mt19937 rng(29);
  for (const Case& t : cases) {
    const ConvProblem p = problem(t);
    ASSERT_TRUE(direct_conv_applies(p)) << "the case must take the direct path";
    const ConvOperands o = random_conv_operands(p, rng);
    const size_t y_size = o.expected.size();
    std::vector<float> unbiased(y_size);
    conv_reference<float, double>(p, o.x.data(), o.w.data(), nullptr, unbiased.data());
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(hwy::TargetName(target));
      for (int variant = 0; variant < 5; ++variant) {
        ConvEpilogue e;
        const float* b = variant == 1 ? nullptr : o.bias.data();
        std::vector<float> want = variant == 1 ? unbiased : o.expected;
        if (variant == 2) {
          e.activation = FusedActivation::kClip;
          e.clip_min = -0.5f;
          e.clip_max = 0.25f;
          for (float& v : want) v = std::min(std::max(v, -0.5f), 0.25f);
        }
        if (variant >= 3) {
          e.residual = o.residual.data();
          for (size_t i = 0; i < y_size; ++i) want[i] += o.residual[i];
        }
        if (variant == 3) {
          e.activation = FusedActivation::kRelu;
          for (float& v : want) v = v < 0 ? 0.0f : v;
        }
        if (variant == 4) {
          e.activation = FusedActivation::kSigmoid;
          for (float& v : want) v = 1.0f / (1.0f + std::exp(-v));
        }
        std::vector<float> y(y_size, std::nanf(""));
        conv_f32(p, o.x.data(), o.w.data(), b, y.data(), nullptr, e);
        ASSERT_TRUE(conv_outputs_match(y, want)) << "case " << t.c << "x" << t.h << "x" << t.w
                                                 << " -> " << t.m << " variant " << variant;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ConvDirect, OnlyFewInputChannelsStrideUpToTwoNoDilation) {
  const ConvProblem p = problem({1, 3, 32, 224, 224, 3, 3, 2, 2, 1, 1, 1, 1});
  EXPECT_TRUE(direct_conv_applies(p));
  ConvProblem q = p;
  q.in_channels = 5;
  EXPECT_FALSE(direct_conv_applies(q));
  q = p;
  q.geometry.stride = {3, 3};
  EXPECT_FALSE(direct_conv_applies(q));
  q = p;
  q.geometry.dilation = {2, 2};
  EXPECT_FALSE(direct_conv_applies(q));
  q = p;
  q.group = 3;
  EXPECT_FALSE(direct_conv_applies(q));
  // Output rows narrower than 16 columns leave most lanes idle: the GEMM path takes them.
  EXPECT_FALSE(direct_conv_applies(problem({1, 3, 32, 30, 29, 3, 3, 2, 2, 1, 1, 1, 1})));
}

}  // namespace
}  // namespace kiln::cpu
