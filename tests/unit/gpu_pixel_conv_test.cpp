// OpenGL ES Conv and ConvTranspose against kiln's CPU ops (the oracle): 1-D and 2-D, strides,
// dilations, asymmetric pads, groups and depthwise, bias, fused Relu and Clip, a ResNet-sized
// layer drawn in bands, and bad parameters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_pixel/conv.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

struct Case {
  std::string name;
  Shape x;  // [N, C, spatial...]
  int64_t out_channels;
  Shape kernel, stride, dilation;
  std::vector<int64_t> pads;  // begins then ends
  int64_t group = 1;
  bool bias = true;
  std::vector<int64_t> output_padding = {};  // ConvTranspose
};

enum class Direction { Conv, ConvTranspose };

const char* onnx_op(Direction d) { return d == Direction::Conv ? "Conv" : "ConvTranspose"; }

// Fused Clip's bounds.
constexpr float kClipMin = -0.5f, kClipMax = 0.5f;

// W as ONNX lays it out: Conv [M, C / group, kernel...], ConvTranspose [C, M / group, kernel...].
Shape weight_shape(Direction d, const Case& c) {
  Shape w = d == Direction::Conv ? Shape{c.out_channels, c.x[1] / c.group}
                                 : Shape{c.x[1], c.out_channels / c.group};
  for (int64_t k : c.kernel) w.push_back(k);
  return w;
}

// kiln's CPU op (the oracle), followed by the activation the GPU kernel fuses.
Tensor cpu_reference(Direction d, const Case& c, const Tensor& x, const Tensor& w, const Tensor& b,
                     ConvActivation act) {
  testing::OpTest op(onnx_op(d));
  op.input(x).input(w);
  if (c.bias) op.input(b);
  op.attr("kernel_shape", c.kernel.to_vector())
      .attr("strides", c.stride.to_vector())
      .attr("dilations", c.dilation.to_vector())
      .attr("pads", c.pads)
      .attr("group", c.group);
  if (!c.output_padding.empty()) op.attr("output_padding", c.output_padding);
  Tensor want = op.run()[0];
  if (act == ConvActivation::kRelu) want = testing::OpTest("Relu").input(want).run()[0];
  if (act == ConvActivation::kClip) {
    want = testing::OpTest("Clip")
               .input(want)
               .input(Tensor::scalar(kClipMin))
               .input(Tensor::scalar(kClipMax))
               .run()[0];
  }
  return want;
}

class GpuPixelConv : public GpuPixel {
 protected:
  void check(Direction d, const Case& c, ConvActivation act = ConvActivation::kNone) {
    const unsigned seed = d == Direction::Conv ? 1 : 4;
    const Tensor x = random_tensor(c.x, -1, 1, seed);
    const Tensor w = random_tensor(weight_shape(d, c), -1, 1, seed + 1);
    const Tensor b = random_tensor({c.out_channels}, -1, 1, seed + 2);
    const Tensor want = cpu_reference(d, c, x, w, b, act);

    // ConvTranspose runs Conv's windows backwards: its image is Y, the windows are X's positions.
    const Shape x_spatial = spatial_dims(c.x), y_spatial = spatial_dims(want.shape());
    ConvParams p;
    p.geometry = {d == Direction::Conv ? x_spatial : y_spatial,
                  d == Direction::Conv ? y_spatial : x_spatial,
                  c.kernel,
                  c.stride,
                  c.dilation,
                  pad_begins(c.pads)};
    p.batch = c.x[0];
    p.in_channels = c.x[1];
    p.out_channels = c.out_channels;
    p.group = c.group;
    p.activation = act;
    p.clip_min = kClipMin;
    p.clip_max = kClipMax;

    const TextureTensor gx = to_gpu(x), gw = to_gpu(w), gb = to_gpu(b);
    const TextureTensor* bias = c.bias ? &gb : nullptr;
    TextureTensor gy(context(), want.element_count());
    if (d == Direction::Conv) {
      Conv(context()).record(p, gx, gw, bias, gy);
    } else {
      Conv(context()).record_transpose(p, gx, gw, bias, gy);
    }
    expect_matches(to_host(gy, want.shape()), want, 1e-4, onnx_op(d) + (" " + c.name), 1e-5);
  }
};

TEST_F(GpuPixelConv, MatchesCpuOverGeometries) {
  const std::vector<Case> cases = {
      {"3x3 same", {1, 3, 7, 9}, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {"stride 2 dilation 2 asymmetric pads",
       {2, 3, 11, 10},
       5,
       {3, 2},
       {2, 2},
       {2, 2},
       {0, 1, 2, 0}},
      {"groups", {2, 4, 6, 6}, 6, {3, 3}, {1, 1}, {1, 1}, {1, 0, 0, 1}, 2},
      {"depthwise", {1, 8, 10, 10}, 8, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 8},
      {"1x1 no bias", {1, 16, 5, 5}, 12, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 1, false},
      {"1-D", {2, 3, 11}, 5, {4}, {2}, {1}, {1, 2}},
      {"1-D dilated", {1, 2, 17}, 3, {3}, {1}, {3}, {0, 0}},
      {"kernel larger than padded image rows",
       {1, 2, 2, 6},
       2,
       {5, 3},
       {1, 1},
       {1, 1},
       {2, 1, 2, 1}},
  };
  for (const Case& c : cases) check(Direction::Conv, c);
}

TEST_F(GpuPixelConv, FusedReluAndClip) {
  const Case c{"fused", {1, 3, 6, 6}, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  check(Direction::Conv, c, ConvActivation::kRelu);
  check(Direction::Conv, c, ConvActivation::kClip);
}

TEST_F(GpuPixelConv, ResNetSizedLayerDrawnInBands) {
  check(Direction::Conv,
        {"64x56x56 3x3", {1, 64, 56, 56}, 64, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}});
}

TEST_F(GpuPixelConv, TransposeMatchesCpu) {
  const std::vector<Case> cases = {
      {"stride 2 with output padding",
       {1, 3, 4, 5},
       2,
       {3, 3},
       {2, 2},
       {1, 1},
       {1, 1, 1, 1},
       1,
       true,
       {1, 1}},
      {"groups and dilation", {2, 4, 5, 5}, 6, {3, 3}, {1, 1}, {2, 2}, {0, 0, 0, 0}, 2},
      {"asymmetric stride and pads, no bias",
       {1, 2, 3, 4},
       3,
       {2, 3},
       {3, 2},
       {1, 1},
       {1, 0, 0, 2},
       1,
       false},
  };
  for (const Case& c : cases) check(Direction::ConvTranspose, c);
}

TEST_F(GpuPixelConv, BadParametersAreErrors) {
  ConvParams p;
  p.geometry = {{5, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}};
  p.in_channels = 3;
  p.out_channels = 4;
  p.group = 2;  // 3 channels do not split into 2 groups
  const TextureTensor x = to_gpu(random_tensor({1, 3, 5, 5}, -1, 1, 1));
  const TextureTensor w = to_gpu(random_tensor({4, 3, 3, 3}, -1, 1, 2));
  TextureTensor y(context(), 36);
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
  p.group = 1;
  TextureTensor wrong_y(context(), 35);
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, wrong_y), Error);
  const TextureTensor short_w = to_gpu(random_tensor({4, 3, 3, 2}, -1, 1, 3));
  EXPECT_THROW(Conv(context()).record(p, x, short_w, nullptr, y), Error);
  p.geometry.stride = {0, 1};
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
  p.geometry = {{5, 5, 1}, {3, 3, 1}, {3, 3, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
  // ConvTranspose takes 3-D geometries, its depth axis checked as the plane's.
  p.geometry = {{1, 5, 5}, {1, 3, 3}, {1, 3, 3}, {0, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  EXPECT_THROW(Conv(context()).record_transpose(p, x, w, nullptr, y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
