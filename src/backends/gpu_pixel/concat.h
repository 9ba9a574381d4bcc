// Concat on texture tensors. A draw writes whole output texels, and input boundaries along the
// axis can fall mid-texel (always possible when concatenating along the last axis), so one draw
// covers the whole output and picks the source of each element: the output is viewed as
// [outer, axis, inner] and the axis coordinate selects the input. One draw takes up to
// kConcatInputsPerDraw inputs (sampler arrays cannot be indexed dynamically in GLSL ES 3.00);
// more inputs concatenate in groups through temporaries. Any texture format, one for all inputs
// and the output; an int64 tensor goes as its words (texel_dtype.h): shapes with a trailing axis
// of 2, the axis counted before it.
//
//   Concat concat(context);
//   const TextureTensor* ins[] = {&a, &b};
//   const Shape shapes[] = {{2, 3}, {2, 5}};
//   concat.record(ins, shapes, 1, y);  // y holds 2 x 8
#pragma once

#include <cstdint>
#include <span>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

constexpr int kConcatInputsPerDraw = 8;

class Concat {
 public:
  explicit Concat(Context& context) : context_(context) {}

  // Draws y = concat(ins, axis); empty inputs contribute nothing, and an empty output draws
  // nothing. kiln::Error on bad shapes or a y of the wrong size.
  void record(std::span<const TextureTensor* const> ins, std::span<const Shape> shapes,
              int64_t axis, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
