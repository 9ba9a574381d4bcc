// shaders/conv*.comp against kiln's CPU Conv and ConvTranspose (the oracle): 1-D, 2-D and 3-D,
// groups, depthwise with and without a channel multiplier, strides, dilations, asymmetric pads,
// 1x1 convs (the GEMM path), bias and fused Relu / Clip; ConvTranspose with strides,
// output_padding, output_shape (negative pads) and groups; and a ResNet-sized layer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/conv.h"
#include "backends/gpu_compute/descriptors.h"
#include "gpu_compute_fixture.h"
#include "gpu_compute_float_util.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

using testing::OpTest;

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, dilations, pads;  // empty: ONNX defaults
  int64_t group = 1;
  bool bias = true;
  ActivationParams activation;
  std::vector<int64_t> output_padding, output_shape;  // ConvTranspose only
};

std::vector<int64_t> or_ones(const std::vector<int64_t>& v, size_t rank) {
  return v.empty() ? std::vector<int64_t>(rank, 1) : v;
}

// The geometry as the CPU op resolves it (explicit pads, no auto_pad).
ConvProblem conv_problem(const ConvCase& c) {
  const size_t rank = c.x.size() - 2;
  const std::vector<int64_t> strides = or_ones(c.strides, rank);
  const std::vector<int64_t> dilations = or_ones(c.dilations, rank);
  std::vector<int64_t> in, out, kernel, pad;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t begin = c.pads.empty() ? 0 : c.pads[d];
    const int64_t end = c.pads.empty() ? 0 : c.pads[d + rank];
    const int64_t window = (c.w[d + 2] - 1) * dilations[d] + 1;
    in.push_back(c.x[d + 2]);
    out.push_back((c.x[d + 2] + begin + end - window) / strides[d] + 1);
    kernel.push_back(c.w[d + 2]);
    pad.push_back(begin);
  }
  ConvProblem p;
  p.geometry = {Shape(in), Shape(out), Shape(kernel), Shape(strides), Shape(dilations), Shape(pad)};
  p.batch = c.x[0];
  p.in_channels = c.x[1];
  p.out_channels = c.w[0];
  p.group = c.group;
  return p;
}

// As src/ops/conv.cpp resolves ConvTranspose (no auto_pad): the image is Y.
ConvProblem conv_transpose_problem(const ConvCase& c) {
  const size_t rank = c.x.size() - 2;
  const std::vector<int64_t> strides = or_ones(c.strides, rank);
  const std::vector<int64_t> dilations = or_ones(c.dilations, rank);
  std::vector<int64_t> in, out, kernel, pad;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t extra = c.output_padding.empty() ? 0 : c.output_padding[d];
    const int64_t full =
        strides[d] * (c.x[d + 2] - 1) + extra + (c.w[d + 2] - 1) * dilations[d] + 1;
    if (!c.output_shape.empty()) {
      const int64_t total = full - c.output_shape[d];
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      pad.push_back(total - half);
      in.push_back(c.output_shape[d]);
    } else {
      const int64_t begin = c.pads.empty() ? 0 : c.pads[d];
      const int64_t end = c.pads.empty() ? 0 : c.pads[d + rank];
      pad.push_back(begin);
      in.push_back(full - begin - end);
    }
    out.push_back(c.x[d + 2]);
    kernel.push_back(c.w[d + 2]);
  }
  ConvProblem p;
  p.geometry = {Shape(in), Shape(out), Shape(kernel), Shape(strides), Shape(dilations), Shape(pad)};
  p.batch = c.x[0];
  p.in_channels = c.x[1];
  p.out_channels = c.w[1] * c.group;
  p.group = c.group;
  return p;
}

// Runs the case on the CPU op and on the GPU kernel and compares.
template <class Kernel>
void check_case(Device& device, const Kernel& kernel, const ConvCase& c, bool transpose,
                unsigned seed) {
  const Tensor x = random_floats(c.x, seed);
  const Tensor w = random_floats(c.w, seed + 1);
  const ConvProblem p = transpose ? conv_transpose_problem(c) : conv_problem(c);
  const Tensor b = random_floats({p.out_channels}, seed + 2);

  OpTest op(transpose ? "ConvTranspose" : "Conv");
  op.input(x).input(w);
  if (c.bias) op.input(b);
  op.attr("group", c.group);
  if (!c.strides.empty()) op.attr("strides", c.strides);
  if (!c.dilations.empty()) op.attr("dilations", c.dilations);
  if (!c.pads.empty()) op.attr("pads", c.pads);
  if (!c.output_padding.empty()) op.attr("output_padding", c.output_padding);
  if (!c.output_shape.empty()) op.attr("output_shape", c.output_shape);
  const Tensor expected = apply_activation(op.run()[0], c.activation);

  std::vector<int64_t> y_shape = {p.batch, p.out_channels};
  const Shape& spatial = transpose ? p.geometry.in : p.geometry.out;
  y_shape.insert(y_shape.end(), spatial.begin(), spatial.end());
  Buffer gx = to_gpu(device, x), gw = to_gpu(device, w), gb = to_gpu(device, b);
  Buffer gy = gpu_floats(device, Shape(y_shape).element_count());
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, p, gx, gw, c.bias ? &gb : nullptr, gy, c.activation);
  });
  expect_close(from_gpu(device, gy, Shape(y_shape)), expected,
               std::string(transpose ? "ConvTranspose " : "Conv ") + c.x.to_string() + " * " +
                   c.w.to_string() + " group " + std::to_string(c.group));
}

const ActivationParams kRelu{Activation::kRelu};
const ActivationParams kClip{Activation::kClip, -0.25f, 0.5f};

TEST_F(GpuCompute, ConvMatchesCpu) {
  const std::vector<ConvCase> cases = {
      {{2, 5, 9, 11}, {7, 5, 3, 3}, {}, {}, {1, 1, 1, 1}},
      {{1, 3, 10, 13}, {10, 3, 3, 3}, {2, 2}, {}, {0, 1, 2, 0}, 1, true, kRelu},  // asymmetric
      {{1, 4, 12, 12}, {9, 4, 3, 3}, {}, {2, 2}, {2, 2, 2, 2}, 1, false},         // dilated
      {{1, 4, 11, 9}, {5, 4, 2, 3}, {3, 2}, {2, 1}, {1, 0, 0, 2}, 1, true, kClip},
      {{1, 6, 8, 8}, {10, 3, 3, 3}, {}, {}, {1, 1, 1, 1}, 2},          // groups
      {{1, 12, 7, 6}, {12, 4, 3, 1}, {1, 2}, {}, {1, 0, 1, 0}, 3},     // groups, 3x1 kernel
      {{2, 5, 20}, {6, 5, 3}, {2}, {2}, {1, 0}},                       // 1-D
      {{1, 3, 5, 6, 7}, {4, 3, 2, 3, 3}, {}, {}, {0, 1, 1, 1, 0, 1}},  // 3-D
      {{1, 3, 32, 32}, {16, 3, 7, 7}, {2, 2}, {}, {3, 3, 3, 3}, 1, true, kRelu},  // a stem
      {{1, 4, 5, 5}, {3, 4, 1, 1}, {}, {}, {0, 0, 1, 1}},     // 1x1 with end pads: not a GEMM
      {{1, 8, 9, 9}, {12, 8, 1, 1}, {2, 2}},                  // 1x1 stride 2: not a GEMM
      {{1, 1, 6, 6}, {2, 1, 3, 3}, {}, {}, {1, 1, 1, 1}},     // one input channel: depthwise path
      {{2, 6, 7, 9}, {9, 2, 3, 3}, {}, {}, {1, 1, 1, 1}, 3},  // batches x groups
      {{3, 4, 6, 5}, {6, 2, 2, 2}, {}, {}, {1, 0, 0, 1}, 2},  // batches x groups, 2x2 kernel
  };
  Conv kernel(device());
  unsigned seed = 1;
  for (const ConvCase& c : cases) check_case(device(), kernel, c, false, seed += 3);
}

TEST_F(GpuCompute, ConvPointwiseRunsAsGemm) {
  const std::vector<ConvCase> cases = {
      {{2, 16, 7, 9}, {24, 16, 1, 1}},
      {{1, 8, 5, 5}, {6, 4, 1, 1}, {}, {}, {}, 2, true, kRelu},  // grouped
      {{2, 8, 5, 5}, {6, 4, 1, 1}, {}, {}, {}, 2},               // batches x groups
      {{3, 5, 11}, {9, 5, 1}, {}, {}, {}, 1, false, kClip},      // 1-D
  };
  Conv kernel(device());
  unsigned seed = 100;
  for (const ConvCase& c : cases) check_case(device(), kernel, c, false, seed += 3);
}

TEST_F(GpuCompute, ConvDepthwiseMatchesCpu) {
  const std::vector<ConvCase> cases = {
      {{2, 8, 9, 10}, {8, 1, 3, 3}, {2, 2}, {}, {1, 1, 1, 1}, 8, true, kClip},  // fused Clip
      {{1, 4, 7, 7}, {8, 1, 5, 5}, {}, {}, {2, 2, 2, 2}, 4},                    // multiplier 2
      {{1, 6, 17, 19}, {6, 1, 3, 3}, {}, {2, 3}, {2, 3, 1, 0}, 6, true, kRelu},
      {{1, 3, 30}, {3, 1, 5}, {3}, {}, {2, 2}, 3, false},  // 1-D
      // The row-window variants: 3 and 5 wide, stride 1 and 2, ragged edges, asymmetric pads.
      {{1, 5, 9, 17}, {5, 1, 3, 3}, {}, {}, {1, 1, 1, 1}, 5},
      {{1, 4, 13, 11}, {4, 1, 5, 5}, {2, 2}, {}, {2, 1, 1, 2}, 4, true, kRelu},
      {{1, 3, 6, 21}, {3, 1, 5, 5}, {1, 1}, {}, {2, 0, 2, 4}, 3},
      {{1, 3, 8, 5}, {3, 1, 3, 3}, {2, 2}, {}, {0, 1, 1, 0}, 3},
      {{2, 4, 3, 19}, {4, 1, 1, 3}, {1, 2}, {}, {0, 1, 0, 1}, 4},  // 1x3, stride 2 along x
  };
  Conv kernel(device());
  unsigned seed = 200;
  for (const ConvCase& c : cases) check_case(device(), kernel, c, false, seed += 3);
}

TEST_F(GpuCompute, ConvResNetLayerSpansManyTiles) {
  Conv kernel(device());
  check_case(device(), kernel,
             {{1, 64, 56, 56}, {64, 64, 3, 3}, {}, {}, {1, 1, 1, 1}, 1, true, kRelu}, false, 300);
}

TEST_F(GpuCompute, ConvTransposeMatchesCpu) {
  ConvCase with_output_padding{{1, 4, 5, 5}, {4, 6, 3, 3}, {2, 2}, {}, {1, 1, 1, 1}};
  with_output_padding.output_padding = {1, 1};
  ConvCase with_output_shape{{1, 2, 3, 3}, {2, 3, 3, 3}, {2, 2}};
  with_output_shape.output_shape = {9, 9};  // larger than the full output: a negative pad
  const std::vector<ConvCase> cases = {
      with_output_padding,
      with_output_shape,
      {{2, 4, 4, 6}, {4, 3, 3, 3}, {2, 1}, {1, 2}, {0, 1, 1, 0}, 2, true, kRelu},  // groups
      {{1, 3, 7}, {3, 5, 4}, {3}, {}, {1, 2}},                                     // 1-D
      {{1, 2, 3, 3, 3}, {2, 2, 2, 2, 2}, {2, 2, 2}, {}, {}, 1, false},             // 3-D
      {{1, 6, 4, 4}, {6, 1, 4, 4}, {2, 2}, {}, {1, 1, 1, 1}, 6, true, kClip},      // depthwise
      {{2, 20, 9, 7}, {20, 11, 3, 3}, {1, 1}, {}, {1, 1, 1, 1}},                   // many channels
  };
  ConvTranspose kernel(device());
  unsigned seed = 400;
  for (const ConvCase& c : cases) check_case(device(), kernel, c, true, seed += 3);
}

TEST_F(GpuCompute, ConvErrorsAreClear) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ConvProblem p = conv_problem({{1, 2, 3, 3, 3, 3}, {2, 2, 1, 1, 1, 1}});
  EXPECT_FALSE(conv_supported(p));
  EXPECT_NE(message([&] { conv_push_constants(p, false, {}); }).find("1 to 3"), std::string::npos);
  p = conv_problem({{1, 6, 5, 5}, {4, 3, 3, 3}, {}, {}, {}, 2});
  EXPECT_TRUE(conv_supported(p));
  p.group = 4;
  EXPECT_NE(message([&] { conv_push_constants(p, false, {}); }).find("must divide"),
            std::string::npos);

  // A buffer smaller than its tensor is refused before anything is recorded.
  p.group = 2;
  Conv kernel(device());
  Buffer small = gpu_floats(device(), 4);
  DescriptorArena arena(device());
  const std::string m = message([&] {
    submit_and_wait(device(), [&](VkCommandBuffer cmd) {
      kernel.record(cmd, arena, p, small, small, nullptr, small);
    });
  });
  EXPECT_NE(m.find("Conv on the GPU: X"), std::string::npos) << m;
}

}  // namespace
}  // namespace kiln::gpu_compute
