// Float32 unary math and activations on texture tensors: every UnaryOp, each op's formula taken
// from its row of gpu_common/unary_ops.inc and the math from gpu_common/shader_math.glsl, as the
// Vulkan shader does. Input and output have the same element count, hence the same texture
// layout, so each fragment maps one texel to one texel with no index math.
//
//   UnaryElementwise kernel(context);
//   kernel.record({UnaryOp::LeakyRelu, 0.1f}, x, y);
#pragma once

#include "backends/gpu_common/device_unary_op.h"
#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

using kiln::UnaryOp;
using kiln::UnaryParams;

class UnaryElementwise {
 public:
  explicit UnaryElementwise(Context& context) : context_(context) {}

  // Draws y = f(x). Nothing for empty tensors. kiln::Error when x and y differ in element count
  // or x and y are the same tensor, or the parameters fail check_unary_params.
  void record(const UnaryParams& params, const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
