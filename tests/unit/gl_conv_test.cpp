// OpenGL ES Conv and ConvTranspose against kiln's CPU ops (the oracle): 1-D and 2-D, strides,
// dilations, asymmetric pads, groups and depthwise, bias, fused Relu and Clip, a ResNet-sized
// layer drawn in bands, and bad parameters.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "backends/gl/conv.h"
#include "gl_fixture.h"
#include "test_util.h"

namespace kiln::gl {
namespace {

Tensor random_tensor(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return testing::f32(shape, v);
}

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

std::vector<int64_t> as_vector(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

class GlConv : public Gl {
 protected:
  void check_conv(const Case& c, ConvActivation act = ConvActivation::None) {
    const size_t rank = c.kernel.size();
    Shape w_shape{c.out_channels, c.x[1] / c.group};
    for (int64_t k : c.kernel) w_shape.push_back(k);
    const Tensor x = random_tensor(c.x, 1);
    const Tensor w = random_tensor(w_shape, 2);
    const Tensor b = random_tensor({c.out_channels}, 3);
    testing::OpTest op("Conv");
    op.input(x).input(w);
    if (c.bias) op.input(b);
    op.attr("kernel_shape", as_vector(c.kernel))
        .attr("strides", as_vector(c.stride))
        .attr("dilations", as_vector(c.dilation))
        .attr("pads", c.pads)
        .attr("group", c.group);
    Tensor want = op.run()[0];
    if (act == ConvActivation::Relu) want = testing::OpTest("Relu").input(want).run()[0];
    if (act == ConvActivation::Clip) {
      want = testing::OpTest("Clip")
                 .input(want)
                 .input(Tensor::scalar(-0.5f))
                 .input(Tensor::scalar(0.5f))
                 .run()[0];
    }

    ConvParams p;
    cpu::ConvGeometry& g = p.geometry;
    for (size_t d = 0; d < rank; ++d) {
      g.in.push_back(c.x[2 + d]);
      g.out.push_back(want.shape()[2 + d]);
    }
    g.kernel = c.kernel;
    g.stride = c.stride;
    g.dilation = c.dilation;
    g.pad = Shape(std::vector<int64_t>(c.pads.begin(), c.pads.begin() + rank));
    p.batch = c.x[0];
    p.in_channels = c.x[1];
    p.out_channels = c.out_channels;
    p.group = c.group;
    p.activation = act;
    p.clip_min = -0.5f;
    p.clip_max = 0.5f;

    const TextureTensor gx = to_gpu(x), gw = to_gpu(w), gb = to_gpu(b);
    TextureTensor gy(context(), want.element_count());
    Conv(context()).record(p, gx, gw, c.bias ? &gb : nullptr, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-4, "Conv " + c.name, 1e-5);
  }

  void check_transpose(const Case& c) {
    const size_t rank = c.kernel.size();
    const int64_t group_out = c.out_channels / c.group;
    Shape w_shape{c.x[1], group_out};
    for (int64_t k : c.kernel) w_shape.push_back(k);
    const Tensor x = random_tensor(c.x, 4);
    const Tensor w = random_tensor(w_shape, 5);
    const Tensor b = random_tensor({c.out_channels}, 6);
    testing::OpTest op("ConvTranspose");
    op.input(x).input(w);
    if (c.bias) op.input(b);
    op.attr("kernel_shape", as_vector(c.kernel))
        .attr("strides", as_vector(c.stride))
        .attr("dilations", as_vector(c.dilation))
        .attr("pads", c.pads)
        .attr("group", c.group);
    if (!c.output_padding.empty()) op.attr("output_padding", c.output_padding);
    const Tensor want = op.run()[0];

    ConvParams p;
    cpu::ConvGeometry& g = p.geometry;
    for (size_t d = 0; d < rank; ++d) {
      g.in.push_back(want.shape()[2 + d]);  // the image is Y
      g.out.push_back(c.x[2 + d]);          // the windows are X's positions
    }
    g.kernel = c.kernel;
    g.stride = c.stride;
    g.dilation = c.dilation;
    g.pad = Shape(std::vector<int64_t>(c.pads.begin(), c.pads.begin() + rank));
    p.batch = c.x[0];
    p.in_channels = c.x[1];
    p.out_channels = c.out_channels;
    p.group = c.group;

    const TextureTensor gx = to_gpu(x), gw = to_gpu(w), gb = to_gpu(b);
    TextureTensor gy(context(), want.element_count());
    Conv(context()).record_transpose(p, gx, gw, c.bias ? &gb : nullptr, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-4, "ConvTranspose " + c.name, 1e-5);
  }
};

TEST_F(GlConv, MatchesCpuOverGeometries) {
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
  for (const Case& c : cases) check_conv(c);
}

TEST_F(GlConv, FusedReluAndClip) {
  const Case c{"fused", {1, 3, 6, 6}, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  check_conv(c, ConvActivation::Relu);
  check_conv(c, ConvActivation::Clip);
}

TEST_F(GlConv, ResNetSizedLayerDrawnInBands) {
  check_conv({"64x56x56 3x3", {1, 64, 56, 56}, 64, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}});
}

TEST_F(GlConv, TransposeMatchesCpu) {
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
  for (const Case& c : cases) check_transpose(c);
}

TEST_F(GlConv, BadParametersAreErrors) {
  ConvParams p;
  p.geometry = {{5, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}};
  p.in_channels = 3;
  p.out_channels = 4;
  p.group = 2;  // 3 channels do not split into 2 groups
  const TextureTensor x = to_gpu(random_tensor({1, 3, 5, 5}, 1));
  const TextureTensor w = to_gpu(random_tensor({4, 3, 3, 3}, 2));
  TextureTensor y(context(), 36);
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
  p.group = 1;
  TextureTensor wrong_y(context(), 35);
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, wrong_y), Error);
  const TextureTensor short_w = to_gpu(random_tensor({4, 3, 3, 2}, 3));
  EXPECT_THROW(Conv(context()).record(p, x, short_w, nullptr, y), Error);
  p.geometry.stride = {0, 1};
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
  p.geometry = {{5, 5, 1}, {3, 3, 1}, {3, 3, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  EXPECT_THROW(Conv(context()).record(p, x, w, nullptr, y), Error);
}

}  // namespace
}  // namespace kiln::gl
