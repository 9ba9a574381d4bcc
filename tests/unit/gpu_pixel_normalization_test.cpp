// OpenGL ES normalization ops against kiln's CPU ops (the oracle): BatchNormalization,
// InstanceNormalization, GroupNormalization (per-channel and opset-18 per-group parameters),
// LayerNormalization with and without bias over one or more trailing axes, and
// LpNormalization with p 1 and 2 including an all-zero line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_pixel/normalization.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

using GpuPixelNormalization = GpuPixel;

TEST_F(GpuPixelNormalization, BatchNormMatchesCpu) {
  const Tensor x = random_tensor({2, 3, 4, 5}, -3, 3, 1);
  const Tensor scale = random_tensor({3}, -2, 2, 2), bias = random_tensor({3}, -1, 1, 3);
  const Tensor mean = random_tensor({3}, -1, 1, 4), var = random_tensor({3}, 0.1f, 2, 5);
  const Tensor want = testing::OpTest("BatchNormalization")
                          .input(x)
                          .input(scale)
                          .input(bias)
                          .input(mean)
                          .input(var)
                          .attr("epsilon", 1e-3f)
                          .run()[0];
  const TextureTensor gx = to_gpu(x), gs = to_gpu(scale), gb = to_gpu(bias), gm = to_gpu(mean),
                      gv = to_gpu(var);
  TextureTensor gy(context(), x.element_count());
  Normalization(context()).record_batch_norm({2, 3, 20}, gx, gs, gb, gm, gv, 1e-3f, gy);
  expect_matches(to_host(gy, want.shape()), want, 1e-5, "BatchNormalization", 1e-6);
}

TEST_F(GpuPixelNormalization, InstanceNormMatchesCpu) {
  const Tensor x = random_tensor({2, 3, 5, 7}, 97, 103, 6);  // an offset the variance must survive
  const Tensor scale = random_tensor({3}, -2, 2, 7), bias = random_tensor({3}, -1, 1, 8);
  const Tensor want = testing::OpTest("InstanceNormalization")
                          .input(x)
                          .input(scale)
                          .input(bias)
                          .attr("epsilon", 1e-5f)
                          .run()[0];
  const TextureTensor gx = to_gpu(x), gs = to_gpu(scale), gb = to_gpu(bias);
  TextureTensor gy(context(), x.element_count());
  Normalization(context()).record_instance_norm({2, 3, 35}, gx, gs, gb, 1e-5f, gy);
  expect_matches(to_host(gy, want.shape()), want, 1e-4, "InstanceNormalization", 1e-4);
}

TEST_F(GpuPixelNormalization, GroupNormMatchesCpuWithPerChannelAndPerGroupParameters) {
  const Tensor x = random_tensor({2, 6, 4, 4}, -3, 3, 9);
  for (const bool per_group : {false, true}) {
    const int64_t params = per_group ? 3 : 6;
    const Tensor scale = random_tensor({params}, -2, 2, 10);
    const Tensor bias = random_tensor({params}, -1, 1, 11);
    const Tensor want = testing::OpTest("GroupNormalization", per_group ? 18 : 21)
                            .input(x)
                            .input(scale)
                            .input(bias)
                            .attr("num_groups", 3)
                            .attr("epsilon", 1e-5f)
                            .run()[0];
    const TextureTensor gx = to_gpu(x), gs = to_gpu(scale), gb = to_gpu(bias);
    TextureTensor gy(context(), x.element_count());
    Normalization(context()).record_group_norm({2, 6, 16}, 3, per_group, gx, gs, gb, 1e-5f, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-4,
                   per_group ? "GroupNormalization per group" : "GroupNormalization", 1e-5);
  }
}

TEST_F(GpuPixelNormalization, LayerNormMatchesCpuOverTrailingAxes) {
  const Tensor x = random_tensor({3, 4, 10}, -3, 3, 12);
  for (const int64_t axis : {2, 1}) {
    const Shape norm_shape = axis == 2 ? Shape{10} : Shape{4, 10};
    const int64_t row_len = norm_shape.element_count();
    const Tensor scale = random_tensor(norm_shape, -2, 2, 13);
    const Tensor bias = random_tensor(norm_shape, -1, 1, 14);
    for (const bool with_bias : {true, false}) {
      testing::OpTest op("LayerNormalization");
      op.input(x).input(scale);
      if (with_bias) op.input(bias);
      const Tensor want = op.attr("axis", axis).attr("epsilon", 1e-5f).run()[0];
      const TextureTensor gx = to_gpu(x), gs = to_gpu(scale), gb = to_gpu(bias);
      TextureTensor gy(context(), x.element_count());
      Normalization(context()).record_layer_norm(x.element_count() / row_len, row_len, gx, gs,
                                                 with_bias ? &gb : nullptr, 1e-5f, gy);
      expect_matches(to_host(gy, want.shape()), want, 1e-4,
                     "LayerNormalization axis " + std::to_string(axis) +
                         (with_bias ? " with bias" : " without bias"),
                     1e-5);
    }
  }
}

TEST_F(GpuPixelNormalization, LpNormMatchesCpu) {
  Tensor x = random_tensor({3, 4, 5}, -3, 3, 15);
  for (int i = 0; i < 4; ++i) x.mutable_data<float>()[i * 5 + 2] = 0.0f;  // line (0, 2) is zero
  for (const int p : {1, 2}) {
    const Tensor want =
        testing::OpTest("LpNormalization").input(x).attr("axis", 1).attr("p", p).run()[0];
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    Normalization(context()).record_lp_norm(3, 4, 5, p, gx, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-5, "LpNormalization p=" + std::to_string(p),
                   1e-6);
  }
}

TEST_F(GpuPixelNormalization, BadParametersAreErrors) {
  Normalization norm(context());
  const TextureTensor x = to_gpu(random_tensor({2, 6, 4}, -1, 1, 1));
  const TextureTensor p6 = to_gpu(random_tensor({6}, -1, 1, 2));
  const TextureTensor p5 = to_gpu(random_tensor({5}, -1, 1, 3));
  TextureTensor y(context(), 48);
  EXPECT_THROW(norm.record_group_norm({2, 6, 4}, 4, false, x, p6, p6, 1e-5f, y), Error);
  EXPECT_THROW(norm.record_instance_norm({2, 6, 4}, x, p5, p6, 1e-5f, y), Error);
  EXPECT_THROW(norm.record_batch_norm({2, 6, 4}, x, p6, p6, p5, p6, 1e-5f, y), Error);
  EXPECT_THROW(norm.record_lp_norm(2, 6, 4, 3, x, y), Error);
  TextureTensor short_y(context(), 47);
  EXPECT_THROW(norm.record_layer_norm(8, 6, x, p6, nullptr, 1e-5f, short_y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
