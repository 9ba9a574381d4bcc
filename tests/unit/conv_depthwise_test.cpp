// The depthwise plane kernel on every SIMD target compiled in and supported here: AVX2 and
// AVX-512 read the plane in place with masked loads, the others through a padded copy, and a
// row's last vector is stored in part; the common kernels (no dilation, padding at most half
// the kernel) go row by row, several output rows at once. Each must give the definition, leave the
// memory after the plane alone and keep NaN where no activation is fused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/conv_depthwise.h"
#include "hwy/targets.h"

namespace kiln::cpu {
namespace {

WindowGeometry geometry(int64_t ih, int64_t iw, int64_t k, int64_t s, int64_t pad_top,
                        int64_t pad_left, int64_t pad_bottom, int64_t pad_right) {
  WindowGeometry g;
  g.in = {ih, iw};
  g.kernel = {k, k};
  g.stride = {s, s};
  g.dilation = {1, 1};
  g.pad = {pad_top, pad_left};
  g.out = {(ih + pad_top + pad_bottom - k) / s + 1, (iw + pad_left + pad_right - k) / s + 1};
  return g;
}

// The definition, in double.
std::vector<float> naive(const WindowGeometry& g, const std::vector<float>& x,
                         const std::vector<float>& w, float bias, const DepthwiseClamp& clamp) {
  std::vector<float> y;
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
      double acc = bias;
      for (int64_t kh = 0; kh < g.kernel[0]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
          const int64_t ih = oh * g.stride[0] + kh - g.pad[0];
          const int64_t iw = ow * g.stride[1] + kw - g.pad[1];
          if (ih < 0 || ih >= g.in[0] || iw < 0 || iw >= g.in[1]) continue;
          acc += static_cast<double>(w[static_cast<size_t>(kh * g.kernel[1] + kw)]) *
                 x[static_cast<size_t>(ih * g.in[1] + iw)];
        }
      }
      float v = static_cast<float>(acc);
      if (clamp.active()) v = std::min(std::max(v, clamp.lo), clamp.hi);
      y.push_back(v);
    }
  }
  return y;
}

TEST(DepthwisePlane, EveryTargetMatchesTheDefinition) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  constexpr float kGuard = 12345.0f;
  constexpr int64_t kGuardFloats = 64;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (int64_t k : {3, 5}) {
      for (int64_t s : {1, 2}) {
        for (int64_t width : {1, 3, 7, 14, 16, 17, 28, 40, 56, 113}) {
          for (int clamp_kind = 0; clamp_kind < 3; ++clamp_kind) {
            const int64_t pad = clamp_kind == 2 ? 0 : k / 2;
            // Asymmetric padding on odd widths, as TF-style "same" padding gives; heights odd and
            // even, so that the kernels that make several output rows at once end on a part.
            const int64_t height = std::max<int64_t>(k, width % 9 + 2 + clamp_kind);
            const WindowGeometry g =
                geometry(height, width, k, s, pad, pad, pad, width % 2 && pad > 0 ? pad - 1 : pad);
            if (g.out[0] <= 0 || g.out[1] <= 0) continue;
            std::vector<float> x(static_cast<size_t>(g.in_size()));
            std::vector<float> w(static_cast<size_t>(k * k));
            for (float& v : x) v = dist(rng);
            for (float& v : w) v = dist(rng);
            const float bias = dist(rng);
            DepthwiseClamp clamp;
            if (clamp_kind >= 1) {
              clamp.lo = 0.0f;
              clamp.hi = 0.5f;
            }
            const int64_t out_size = g.out_size();
            std::vector<float> y(static_cast<size_t>(out_size + kGuardFloats), kGuard);
            std::vector<float> scratch(depthwise_scratch_floats(g));
            depthwise_conv2d_plane(g, x.data(), w.data(), bias, clamp, y.data(), scratch.data());
            const std::vector<float> e = naive(g, x, w, bias, clamp);
            SCOPED_TRACE(::testing::Message() << "k " << k << " s " << s << " width " << width
                                              << " clamp " << clamp_kind);
            for (int64_t i = 0; i < out_size; ++i) {
              const float ei = e[static_cast<size_t>(i)];
              ASSERT_NEAR(y[static_cast<size_t>(i)], ei, 1e-5f + 1e-5f * std::abs(ei)) << i;
            }
            for (int64_t i = out_size; i < out_size + kGuardFloats; ++i) {
              ASSERT_EQ(y[static_cast<size_t>(i)], kGuard) << "written past the plane at " << i;
            }
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(DepthwisePlane, NaNStaysNaNWithoutAnActivation) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    const WindowGeometry g = geometry(9, 9, 3, 1, 1, 1, 1, 1);
    std::vector<float> x(81, 1.0f);
    x[40] = std::numeric_limits<float>::quiet_NaN();  // the centre
    const std::vector<float> w(9, 1.0f);
    std::vector<float> y(81);
    std::vector<float> scratch(depthwise_scratch_floats(g));
    depthwise_conv2d_plane(g, x.data(), w.data(), 0.0f, DepthwiseClamp{}, y.data(), scratch.data());
    EXPECT_TRUE(std::isnan(y[40]));
    EXPECT_TRUE(std::isnan(y[30]));
    EXPECT_EQ(y[0], 4.0f);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace kiln::cpu
