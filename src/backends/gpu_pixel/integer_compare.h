// The comparisons Equal, Less, LessOrEqual, Greater and GreaterOrEqual of integer texture tensors
// (int32 and int64 in RGBA32I, uint32 in RGBA32UI; texel_dtype.h) with numpy broadcasting,
// writing bool 0/1 into a float texture. An int64 compares exactly through both words: the high
// words signed, then the low ones unsigned. Indexing as binary_elementwise.h's, on elements.
//
//   IntegerCompare kernel(context);
//   kernel.record(BinaryOp::Less, DataType::Int64, a, a_shape, b, b_shape, c);
#pragma once

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

class IntegerCompare {
 public:
  explicit IntegerCompare(Context& context) : context_(context) {}

  // Draws c = a <op> b for a and b of `dtype` (int32, uint32 or int64). Nothing for an empty
  // output. kiln::Error for another op or dtype, shapes that do not broadcast, textures that hold
  // fewer words than their shapes need, or c not sized for the broadcast shape.
  void record(BinaryOp op, DataType dtype, const TextureTensor& a, const Shape& a_shape,
              const TextureTensor& b, const Shape& b_shape, TextureTensor& c) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
