// Host side of shaders/conv*.comp, conv_depthwise*.comp and conv_transpose.comp: float32 ONNX Conv
// and ConvTranspose on NCHW tensors with 1, 2 or 3 spatial axes, with the bias and an activation
// (fused Conv+Relu / Conv+Clip) applied in the store.
//
// The problem is kiln::ConvProblem, exactly as the CPU op fills it (src/ops/conv.cpp):
// the executor resolves auto_pad, pads, output_padding and output_shape into its geometry, so
// these kernels cover kernel_shape, strides, dilations, begin/end pads (end pads only show in
// geometry.out), group, output_padding and output_shape.
//
//   Conv conv(device);
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     conv.record(cmd, arena, problem, x, w, &bias, y, {Activation::kRelu});
//   });
//
// Conv picks one of three paths: a 1x1 stride-1 unpadded conv is a batched GEMM on X itself
// (MatMul); one input channel per group (depthwise, any channel multiplier) runs a direct
// kernel, with variants that load each input row once for kernels 3 or 5 wide; everything else is
// an implicit GEMM (output channels x output pixels, K = channels per group x taps)
// register-blocked 8 x 8, reading X in place, with variants that load each input row once per
// channel for kernels 3 wide. ConvTranspose gathers, for each output pixel, the
// input positions and taps that reach it, blocked 8 output channels x 8 pixels.
//
// Limits (kiln::Error from record(), so the caller can fall back to the CPU): at most 3 spatial
// axes (conv_supported() says so up front); every tensor fits one storage-buffer binding
// (maxStorageBufferRange: 128 MiB on lavapipe) and 32-bit indexing; batch * group at most
// maxComputeWorkGroupCount[2] (65535 on most devices).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/matmul.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/conv.h"

namespace kiln::gpu_compute {

constexpr size_t kConvMaxSpatialRank = 3;

// Whether Conv / ConvTranspose here handle `problem` (its spatial rank is 1 to 3).
bool conv_supported(const ConvProblem& problem);

// Mirrors shaders/conv_params.glsl (std430, no padding). Spatial axes are (z, y, x), lower
// ranks padded in front with size-1 axes.
struct ConvPushConstants {
  uint32_t in[3] = {1, 1, 1};
  uint32_t out[3] = {1, 1, 1};
  uint32_t kernel[3] = {1, 1, 1};
  uint32_t stride[3] = {1, 1, 1};
  uint32_t dilation[3] = {1, 1, 1};
  int32_t pad[3] = {};
  uint32_t in_channels_per_group = 0;   // cg: X's
  uint32_t out_channels_per_group = 0;  // mg: Y's
  uint32_t groups = 1;
  uint32_t has_bias = 0;
  uint32_t activation = 0;
  float act_min = 0.0f;
  float act_max = 0.0f;
  uint32_t has_residual = 0;
};
static_assert(sizeof(ConvPushConstants) <= kMaxPushConstantBytes);

// Push constants for `problem`; kiln::Error when it is inconsistent (channels not divisible by
// group, an empty kernel, a stride or dilation below 1) or past the limits.
ConvPushConstants conv_push_constants(const ConvProblem& problem, bool has_bias,
                                      const ActivationParams& activation);

class Conv {
 public:
  explicit Conv(Device& device);

  // y = act(conv(x, w) + bias + residual), then a barrier on y.
  //   x: [batch, in_channels, in...]                 (geometry.in)
  //   w: [out_channels, in_channels / group, kernel...]
  //   bias: [out_channels], or null
  //   y: [batch, out_channels, out...]               (geometry.out)
  //   residual: y's shape (kiln::FusedConv's Z), or null
  // Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& problem,
              const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y,
              const ActivationParams& activation = {}, const Buffer* residual = nullptr) const;

 private:
  Device& device_;
  MatMul matmul_;
  // The implicit GEMM for any kernel, then its variants for kernels 3 wide with stride 1 or 2
  // along x (see shaders/conv.glsl), indexed by general_variant().
  std::vector<std::unique_ptr<ComputePipeline>> general_;
  // Any depthwise kernel, then the variants for kernels 3 or 5 wide with stride 1 or 2 along x
  // (see shaders/conv_depthwise.glsl), indexed by depthwise_variant().
  std::vector<std::unique_ptr<ComputePipeline>> depthwise_;
};

class ConvTranspose {
 public:
  explicit ConvTranspose(Device& device);

  // y = act(conv_transpose(x, w) + bias), then a barrier on y. As for the CPU kernel,
  // the geometry's window positions are X's and its image is Y's:
  //   x: [batch, in_channels, geometry.out...]
  //   w: [in_channels, out_channels / group, kernel...]
  //   bias: [out_channels], or null
  //   y: [batch, out_channels, geometry.in...]
  // Records nothing for an empty output.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const ConvProblem& problem,
              const Buffer& x, const Buffer& w, const Buffer* bias, const Buffer& y,
              const ActivationParams& activation = {}) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
