// Float32 reductions on texture tensors over the lines of a folded (outer, reduced, inner) shape
// (folded_lines.h, the reduced length as axis_len): the host merges the reduced axes when they
// are contiguous (and transposes them together first, with the region-copy kernel, when they are
// not). Y[o, i] = reduce over r of X[o, r, i].
//
//   Reduce(context).record(ReduceOp::Mean, {outer, reduced, inner}, x, y);  // y: outer * inner
//
// One fragment computes four consecutive outputs, each looping over its reduced line. Max and
// Min propagate NaN and an empty reduction gives each op's identity (Sum 0, Prod 1, Max -inf,
// Min +inf, LogSum and LogSumExp -inf, Mean NaN), as on the CPU. ArgMax and ArgMin, whose
// outputs are integers, have their own kernel (arg_reduce.h).
#pragma once

#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/reduce.h"

namespace kiln::gpu_pixel {

using ReduceShape = FoldedShape;

class Reduce {
 public:
  explicit Reduce(Context& context) : context_(context) {}

  // kiln::Error on negative sizes, more elements than 32-bit indexing reaches, or tensors
  // holding other element counts than the shape gives.
  void record(ReduceOp op, const ReduceShape& shape, const TextureTensor& x,
              TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
