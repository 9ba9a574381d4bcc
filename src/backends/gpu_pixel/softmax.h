// Float32 Softmax, LogSoftmax and Hardmax on texture tensors along the middle axis of a folded
// (outer, axis_len, inner) shape; the host folds the dimensions before and after the axis.
//
//   Softmax(context).record(SoftmaxOp::Softmax, {outer, axis_len, inner}, x, y);
//
// Two draws: the first writes each line's stats into a small texture (one fragment per two
// lines), the second writes every element from its line's stats, so no element loops over its
// line. Softmax's stats are the line's maximum and sum of exp(x - max); Hardmax's are the index
// of its first maximum.
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_pixel {

using SoftmaxShape = FoldedShape;

class Softmax {
 public:
  explicit Softmax(Context& context) : context_(context) {}

  // kiln::Error on negative sizes, more elements than 32-bit indexing reaches, or tensors
  // holding other element counts than the shape gives.
  void record(SoftmaxOp op, const SoftmaxShape& shape, const TextureTensor& x,
              TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
