// Sum, Max, Min and Mean of any number of float32 texture tensors, with numpy broadcasting
// across all of them. A draw cannot read the texture it writes, so each further input is one
// binary draw (binary_elementwise.h) from the running result into a fresh texture holding the
// broadcast of the inputs so far; the last draw writes the output. Mean then divides the sum by
// the input count, as the CPU op does.
//
//   VariadicElementwise kernel(context);
//   const VariadicInput inputs[] = {{&a, a_shape}, {&b, b_shape}, {&d, d_shape}};
//   kernel.record(VariadicOp::Sum, inputs, c);  // c holds the broadcast shape
#pragma once

#include <span>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "backends/gpu_pixel/unary_elementwise.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

enum class VariadicOp { Sum, Max, Min, Mean };

struct VariadicInput {
  const TextureTensor* tensor;
  Shape shape;
};

class VariadicElementwise {
 public:
  explicit VariadicElementwise(Context& context)
      : context_(context), binary_(context), unary_(context) {}

  // Draws c = op(inputs...). kiln::Error when there are fewer than two inputs, their shapes do
  // not broadcast together, or c is not sized for the broadcast shape. `c` must not be an input.
  void record(VariadicOp op, std::span<const VariadicInput> inputs, TextureTensor& c) const;

 private:
  Context& context_;
  BinaryElementwise binary_;
  UnaryElementwise unary_;
};

}  // namespace kiln::gpu_pixel
