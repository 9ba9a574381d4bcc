// ArgMax and ArgMin of a float texture tensor over the lines of a folded (outer, axis, inner)
// shape (folded_lines.h), written as int64 indices: the words of an RGBA32I texture
// (texel_dtype.h), the index as the low word and 0 as the high one. Y[o, i] = the first (or,
// with select_last_index, the last) r whose X[o, r, i] is the line's extremum; comparisons with
// NaN are false, as in the CPU kernel's loop, so a NaN wins only at r = 0.
//
//   ArgReduce(context).record(true, false, {outer, axis, inner}, x, y);  // y: 2 outer inner words
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

class ArgReduce {
 public:
  explicit ArgReduce(Context& context) : context_(context) {}

  // kiln::Error on an empty axis with lines to reduce, sizes past 32-bit indexing, x not a float
  // texture of the shape's elements, or y not an RGBA32I texture of two words per line.
  void record(bool max, bool select_last_index, const FoldedShape& shape, const TextureTensor& x,
              TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
