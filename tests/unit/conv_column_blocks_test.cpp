// conv_f32's im2col / pointwise path cuts the output positions into column blocks and, on
// several threads, runs the blocks as parallel jobs (each builds its own columns, copies its
// part of the residual, multiplies and activates). Checked against the direct convolution (the
// loop-nest reference, in double) on every SIMD target compiled in and supported here, on one,
// two and three threads, for layers large enough to be split: odd sizes, strides, pads,
// dilations, groups, batches, 1-D and 2-D windows, and every fused epilogue. The blocks must
// not change any element's summation order, so all thread counts agree bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_reference.h"
#include "conv_test_operands.h"
#include "core/thread_pool.h"
#include "hwy/targets.h"
#include "random_data.h"
#include "run_as_job.h"

namespace kiln::cpu {
namespace {

using kiln::testing::conv_outputs_match;
using kiln::testing::ConvOperands;
using kiln::testing::random_conv_operands;
using kiln::testing::uniform_floats;

using V = std::vector<int64_t>;

struct Case {
  int64_t batch, c, m, group;
  V in, kernel, stride, dilation, pad_begin, pad_end;
};

ConvProblem problem(const Case& t) {
  ConvProblem p;
  p.batch = t.batch;
  p.in_channels = t.c;
  p.out_channels = t.m;
  p.group = t.group;
  WindowGeometry& g = p.geometry;
  g.in = t.in;
  g.kernel = t.kernel;
  g.stride = t.stride;
  g.dilation = t.dilation;
  g.pad = t.pad_begin;
  g.out.clear();
  for (size_t d = 0; d < t.in.size(); ++d) {
    const int64_t span = (t.kernel[d] - 1) * t.dilation[d] + 1;
    g.out.push_back((t.in[d] + t.pad_begin[d] + t.pad_end[d] - span) / t.stride[d] + 1);
  }
  return p;
}

float hard_swish(float v) {
  const float s = v / 6.0f + 0.5f;
  return v * (s < 0 ? 0.0f : (s > 1 ? 1.0f : s));
}

TEST(ConvColumnBlocks, SplitLayersMatchTheDirectConvolutionOnEveryThreadCount) {
  const Case cases[] = {
      // 3x3 stride 2 (a downsampling conv): odd image, several blocks of columns.
      {1, 48, 72, 1, {29, 31}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 0}},
      // 1x1 stride 1: the GEMM reads X in place; an output row count off the register tile.
      {2, 64, 90, 1, {23, 37}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}},
      // Two groups, a dilated 5x3 window, asymmetric padding.
      {1, 40, 64, 2, {33, 35}, {5, 3}, {1, 1}, {2, 1}, {2, 0}, {1, 2}},
      // 1-D, a 7x7-like stem on few channels with a long row (many im2col blocks).
      {1, 3, 64, 1, {3001}, {7}, {2}, {1}, {3}, {3}},
      // 1x1 stride 2 (a ResNet shortcut): not pointwise, so it builds columns.
      {1, 96, 128, 1, {27, 27}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
  };
  std::mt19937 rng(91);
  ThreadPool one(1), two(2), three(3);
  ThreadPool* pools[] = {&one, &two, &three};
  for (const Case& t : cases) {
    const ConvProblem p = problem(t);
    const WindowGeometry& g = p.geometry;
    const int64_t taps = g.kernel_size();
    const double flops = 2.0 * static_cast<double>(t.m * g.out_size() * (t.c / t.group) * taps);
    ASSERT_GE(flops, 4e6) << "the case must be large enough to be split over threads";
    const ConvOperands o = random_conv_operands(p, rng);
    const size_t y_size = o.expected.size();
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      SCOPED_TRACE(hwy::TargetName(target));
      for (int variant = 0; variant < 4; ++variant) {
        ConvEpilogue e;
        std::vector<float> want = o.expected;
        if (variant == 1 || variant == 2) {
          e.residual = o.residual.data();
          for (size_t i = 0; i < y_size; ++i) want[i] += o.residual[i];
        }
        if (variant == 2) {
          e.activation = FusedActivation::kRelu;
          for (float& v : want) v = v < 0 ? 0.0f : v;
        }
        if (variant == 3) {
          e.activation = FusedActivation::kHardSwish;
          for (float& v : want) v = hard_swish(v);
        }
        SCOPED_TRACE(::testing::Message() << "case " << t.c << "->" << t.m << " group " << t.group
                                          << " variant " << variant);
        std::vector<float> first;
        for (ThreadPool* pool : pools) {
          SCOPED_TRACE(::testing::Message() << pool->num_threads() << " threads");
          std::vector<float> y(y_size, std::nanf(""));
          testing::run_as_job(*pool, [&] {
            conv_f32(p, o.x.data(), o.w.data(), o.bias.data(), y.data(), nullptr, e);
          });
          ASSERT_TRUE(conv_outputs_match(y, want));
          if (first.empty()) {
            first = y;
          } else {
            for (size_t i = 0; i < y_size; ++i) {
              ASSERT_EQ(y[i], first[i]) << "a thread count changed the result at " << i;
            }
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// The residual may be the output itself (the runtime reuses Z's buffer for Y): each block must
// read its part of Z before writing it, and no other block's.
TEST(ConvColumnBlocks, ResidualInPlace) {
  const Case t{1, 32, 48, 1, {40, 41}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}};
  const ConvProblem p = problem(t);
  const WindowGeometry& g = p.geometry;
  std::mt19937 rng(5);
  const auto x = uniform_floats(static_cast<size_t>(t.c * g.in_size()), rng);
  const auto w = uniform_floats(static_cast<size_t>(t.m * t.c * 9), rng);
  const size_t y_size = static_cast<size_t>(t.m * g.out_size());
  const auto residual = uniform_floats(y_size, rng);
  std::vector<float> want(y_size);
  conv_reference<float, double>(p, x.data(), w.data(), nullptr, want.data());
  for (size_t i = 0; i < y_size; ++i) want[i] = std::max(0.0f, want[i] + residual[i]);
  ThreadPool two(2);
  std::vector<float> y = residual;
  ConvEpilogue e;
  e.residual = y.data();
  e.activation = FusedActivation::kRelu;
  testing::run_as_job(two, [&] { conv_f32(p, x.data(), w.data(), nullptr, y.data(), nullptr, e); });
  for (size_t i = 0; i < y_size; ++i) {
    ASSERT_LE(std::abs(y[i] - want[i]), 1e-4f + 1e-3f * std::abs(want[i])) << "at " << i;
  }
}

}  // namespace
}  // namespace kiln::cpu
