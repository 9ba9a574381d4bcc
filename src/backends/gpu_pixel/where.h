// Where on texture tensors: out = condition ? x : y with numpy broadcasting of all three. The
// condition is bool (0/1 values); x and y share any texture format, whose values are copied
// unchanged (an int64 goes as its words, texel_dtype.h: x and y with a trailing axis of 2, the
// condition with one of 1). Up to 6 dimensions remain after dropping the output's size-1 dimensions
// and merging dimensions contiguous in all three inputs.
//
//   Where kernel(context);
//   kernel.record({&c, c_shape}, {&x, x_shape}, {&y, y_shape}, out);
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

struct WhereOperand {
  const TextureTensor* texture;
  Shape shape;
};

class Where {
 public:
  explicit Where(Context& context) : context_(context) {}

  // Draws out = condition ? x : y. Nothing for an empty output. kiln::Error when the shapes do
  // not broadcast, more than 6 dimensions remain, a texture holds fewer elements than its shape
  // or `out` is not sized for the broadcast shape.
  void record(const WhereOperand& condition, const WhereOperand& x, const WhereOperand& y,
              TextureTensor& out) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
