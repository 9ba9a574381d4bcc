// Float32 pooling over 3 spatial axes (N, C, D, H, W) on texture tensors: MaxPool (no Indices
// output), AveragePool (with or without count_include_pad) and LpPool, with the CPU's geometry
// (PoolParams, pool.h) and its rules: the taps inside the image, an empty window giving -inf for
// Max and 0 otherwise, a NaN first tap kept by Max.
//
//   Pool3d(context).record(params, x, y);  // params.shape.geometry of rank 3
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/pool.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

class Pool3d {
 public:
  explicit Pool3d(Context& context) : context_(context) {}

  // Y[planes, geometry.out] from X[planes, geometry.in]. kiln::Error on a rank other than 3,
  // non-positive strides, dilations or kernel sizes, p <= 0, sizes beyond 32-bit indexing, or
  // tensors holding other element counts than these shapes.
  void record(const PoolParams& params, const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
