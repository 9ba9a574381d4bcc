// Float32 Resize on texture tensors over the last two axes (NCHW images, or any tensor whose
// leading axes keep their size), every mode the CPU kernel has: the host computes each axis's
// filter taps with compute_axis_taps, the same code the CPU backend runs, and uploads them
// as a small texture, so coordinate modes, nearest rounding, cubic coefficients, exclude_outside,
// antialiasing and tf_crop_and_resize's extrapolation all match the CPU by construction.
//
//   std::vector<ResizeAxis> axes = ...;  // one per dimension, as for cpu::resize
//   Resize(context).record(axes, options, x, y);
//
// One fragment computes four consecutive outputs, each the weighted sum over its row taps of
// the weighted sum over its column taps, in the CPU's order.
#pragma once

#include <span>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/resize.h"

namespace kiln::gpu_pixel {

class Resize {
 public:
  explicit Resize(Context& context) : context_(context) {}

  // kiln::Error when fewer than one axis is given, a leading axis (all but the last two)
  // changes, or x and y hold other element counts than the axes give.
  void record(std::span<const ResizeAxis> axes, const ResizeOptions& options,
              const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
