// PackedConvWeights: a conv with constant weights gets the weights' packed forms on the run that
// first needs them (GEMM-packed as B for small maps, as A for large ones, Winograd-transformed
// for 3x3 stride-1 layers), and keeps only those. Checked against the loop-nest reference (in
// double) on every SIMD target compiled in and supported here, with the model tolerance |a - e| <=
// 1e-4 + 1e-3 |e|, and by the bytes the forms hold: a Winograd layer must not also hold a
// GEMM-packed copy of its weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_reference.h"
#include "backends/cpu/conv_winograd.h"
#include "hwy/targets.h"
#include "random_data.h"

namespace kiln::cpu {
namespace {

using kiln::testing::uniform_floats;

ConvProblem square_problem(int64_t c, int64_t m, int64_t group, int64_t size, int64_t kernel,
                           int64_t stride) {
  ConvProblem p;
  p.in_channels = c;
  p.out_channels = m;
  p.group = group;
  WindowGeometry& g = p.geometry;
  const int64_t pad = kernel / 2;
  g.in = {size, size};
  g.kernel = {kernel, kernel};
  g.stride = {stride, stride};
  g.dilation = {1, 1};
  g.pad = {pad, pad};
  const int64_t out = (size + 2 * pad - kernel) / stride + 1;
  g.out = {out, out};
  return p;
}

// Runs p twice through one PackedConvWeights (the second run uses the kept forms), with a
// residual and Relu when `fused`, and checks both against the reference; returns the bytes the
// forms hold afterwards.
size_t run_and_check(const ConvProblem& p, std::mt19937& rng, bool fused = false) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group;
  const auto x = uniform_floats(static_cast<size_t>(p.in_channels * g.in_size()), rng);
  const auto w = uniform_floats(static_cast<size_t>(p.out_channels * cg * g.kernel_size()), rng);
  const auto bias = uniform_floats(static_cast<size_t>(p.out_channels), rng);
  const size_t y_size = static_cast<size_t>(p.out_channels * g.out_size());
  std::vector<float> want(y_size);
  conv_reference<float, double>(p, x.data(), w.data(), bias.data(), want.data());
  const auto residual = uniform_floats(y_size, rng);
  ConvEpilogue e;
  if (fused) {
    e.residual = residual.data();
    e.activation = FusedActivation::kRelu;
    for (size_t i = 0; i < y_size; ++i) want[i] = std::max(want[i] + residual[i], 0.0f);
  }
  const PackedConvWeights packed;
  for (int run = 0; run < 2; ++run) {
    std::vector<float> y(y_size, std::nanf(""));
    conv_f32(p, x.data(), w.data(), bias.data(), y.data(), &packed, e);
    for (size_t i = 0; i < y_size; ++i) {
      EXPECT_LE(std::abs(y[i] - want[i]), 1e-4f + 1e-3f * std::abs(want[i]))
          << "run " << run << " at " << i << ": " << y[i] << " against " << want[i];
      if (::testing::Test::HasFailure()) return packed.size_bytes();
    }
  }
  return packed.size_bytes();
}

TEST(ConvPackedWeights, SmallMapsUseGemmPackedWeightsOnEveryTarget) {
  std::mt19937 rng(5);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    // 7 x 7 maps (ResNet-50's last stage): 1x1 and 3x3, one group and two, and enough output
    // channels (272) for the tiled transpose; plain and with a residual and Relu.
    for (const ConvProblem& p :
         {square_problem(64, 96, 1, 7, 1, 1), square_problem(48, 40, 1, 7, 3, 1),
          square_problem(32, 64, 2, 9, 3, 2), square_problem(40, 272, 1, 7, 1, 1)}) {
      SCOPED_TRACE(::testing::Message() << p.in_channels << " -> " << p.out_channels << ", "
                                        << p.geometry.kernel[0] << "x" << p.geometry.kernel[0]);
      run_and_check(p, rng, /*fused=*/true);
      const size_t bytes = run_and_check(p, rng);
      // The packed copy exists (at least the weights' own size): the small-map path took it.
      const int64_t weights = p.out_channels * p.in_channels / p.group * p.geometry.kernel_size();
      EXPECT_GE(bytes, static_cast<size_t>(weights) * sizeof(float));
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ConvPackedWeights, WinogradLayersHoldOnlyTheTransformedWeights) {
  std::mt19937 rng(6);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    const ConvProblem p = square_problem(32, 48, 1, 28, 3, 1);
    ASSERT_TRUE(winograd_applies(p));
    const size_t bytes = run_and_check(p, rng);
    EXPECT_EQ(bytes, static_cast<size_t>(36 * p.out_channels * p.in_channels) * sizeof(float));
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ConvPackedWeights, LargeMapsHoldTheWeightsPackedAsTheLeftOperand) {
  std::mt19937 rng(7);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    // 1x1 over a 28 x 28 map, a strided 3x3 and a grouped one: the general path, W_g as A.
    for (const ConvProblem& p :
         {square_problem(32, 48, 1, 28, 1, 1), square_problem(16, 32, 1, 40, 3, 2),
          square_problem(16, 20, 2, 30, 3, 1)}) {
      const size_t bytes = run_and_check(p, rng);
      // W's own size, plus at most the padding of each group's last panel of rows.
      const int64_t k = p.in_channels / p.group * p.geometry.kernel_size();
      const int64_t weights = p.out_channels * k;
      EXPECT_GE(bytes, static_cast<size_t>(weights) * sizeof(float));
      EXPECT_LE(bytes, static_cast<size_t>(weights + p.group * 16 * k) * sizeof(float));
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace kiln::cpu
