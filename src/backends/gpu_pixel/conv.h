// Float32 Conv (NCHW, 1-D and 2-D, groups including depthwise, strides, dilations, asymmetric
// pads, bias, a residual added and an activation applied to the output, as kiln::FusedConv) and 1-,
// 2- and 3-D ConvTranspose (as a gather: each output element sums the input positions whose
// windows cover it) on texture tensors.
//
// Both take the CPU backend's geometry. For Conv, `in` is X's spatial dims and `out` Y's; for
// ConvTranspose it is the geometry of the matching forward conv, as the CPU op builds it: `in`
// is Y's spatial dims (the image), `out` is X's (the window positions), and `pad` the begin
// pads, possibly negative. 1-D geometries are run as 2-D with a height of one.
//
//   ConvParams p{geometry, batch, in_channels, out_channels, group};
//   Conv(context).record(p, x, w, &bias, y);            // bias may be nullptr
//   Conv(context).record(p, x, w, &bias, y, &z);        // y = activation(conv + bias + z)
//   Conv(context).record_transpose(p, x, w, nullptr, y);
//
// One fragment computes four consecutive output elements, each looping over its group's input
// channels and the kernel taps that land inside the image (bounds computed once per element, so
// the inner loop has no tests). Large layers are drawn in bands of texture rows so that no single
// draw runs for seconds on a software rasterizer.
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/fused_activation.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/window.h"

namespace kiln::gpu_pixel {

using ConvActivation = FusedActivation;

struct ConvParams {
  WindowGeometry geometry;
  int64_t batch = 1;
  int64_t in_channels = 0;   // X's channels
  int64_t out_channels = 0;  // Y's channels
  int64_t group = 1;
  ConvActivation activation = ConvActivation::kNone;
  float clip_min = 0.0f, clip_max = 0.0f;
};

class Conv {
 public:
  explicit Conv(Context& context) : context_(context) {}

  // Y[batch, out_channels, geometry.out] from X[batch, in_channels, geometry.in] and
  // W[out_channels, in_channels / group, geometry.kernel]. kiln::Error on a geometry of rank
  // other than 1 or 2, channels not divisible by group, non-positive strides or dilations, or
  // tensors holding other element counts than these shapes. `residual`, when given, holds Y's
  // elements and is added before the activation.
  void record(const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
              const TextureTensor* bias, TextureTensor& y,
              const TextureTensor* residual = nullptr) const;

  // ConvTranspose: Y[batch, out_channels, geometry.in] from X[batch, in_channels, geometry.out]
  // and W[in_channels, out_channels / group, geometry.kernel]; rank 2 or 3 (1-D as height 1).
  void record_transpose(const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
                        const TextureTensor* bias, TextureTensor& y) const;

 private:
  void run(bool transpose, const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
           const TextureTensor* bias, const TextureTensor* residual, TextureTensor& y) const;

  Context& context_;
};

}  // namespace kiln::gpu_pixel
