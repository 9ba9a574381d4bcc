// Float32 pooling on texture tensors, N, C and 1 to 3 spatial axes: MaxPool (no Indices output),
// AveragePool (with or without count_include_pad), LpPool, and the global Max, Average and Lp
// pools as one window over each whole plane. One shader serves every rank: fewer spatial axes
// are leading axes of size 1. The geometry is the CPU backend's PoolShape
// (image = input plane, windows = output plane, end pads for count_include_pad), so the ops'
// attribute handling (auto_pad, ceil_mode) is shared with the CPU.
//
//   PoolParams p{PoolOp::Max, shape};
//   Pool(context).record(p, x, y);
//   Pool(context).record_global(PoolOp::Average, planes, plane_size, x, y);
//
// One fragment computes four consecutive outputs, each looping over the window's taps inside the
// image, as the CPU kernels do: an empty window gives -inf for Max and 0 otherwise, and a NaN
// first tap is kept by Max.
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/window.h"

namespace kiln::gpu_pixel {

struct PoolParams {
  PoolOp op = PoolOp::Max;
  PoolShape shape;
  bool count_include_pad = false;  // AveragePool
  float p = 2.0f;                  // LpPool's exponent, > 0
};

class Pool {
 public:
  explicit Pool(Context& context) : context_(context) {}

  // Y[planes, geometry.out] from X[planes, geometry.in]. kiln::Error on a rank other than 1 to
  // 3, non-positive strides, dilations or kernel sizes, p <= 0, sizes beyond 32-bit indexing, or
  // tensors holding other element counts than these shapes.
  void record(const PoolParams& params, const TextureTensor& x, TextureTensor& y) const;

  // GlobalMaxPool, GlobalAveragePool, GlobalLpPool (exponent p): Y[planes] from
  // X[planes, plane_size].
  void record_global(PoolOp op, int64_t planes, int64_t plane_size, const TextureTensor& x,
                     TextureTensor& y, float p = 2.0f) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
