// Float32 unary math and activations on texture tensors. Input and output have the same element
// count, hence the same texture layout, so each fragment maps one texel to one texel with no
// index math. GLSL ES leaves exp, log, tanh, sin and cos loosely specified (sin and cos only to
// an absolute 2^-11), so the shader computes them itself to about 1e-7 relative, as the Vulkan
// shader does.
//
//   UnaryElementwise kernel(context);
//   kernel.record({UnaryOp::LeakyRelu, 0.1f}, x, y);
#pragma once

#include "backends/gl/context.h"
#include "backends/gl/texture.h"
#include "backends/gpu_common/device_unary_op.h"

namespace kiln::gl {

// The draws take every UnaryOp.
using kiln::UnaryOp;
using kiln::UnaryParams;

const char* to_string(UnaryOp op);

class UnaryElementwise {
 public:
  explicit UnaryElementwise(Context& context) : context_(context) {}

  // Draws y = f(x). Nothing for empty tensors. kiln::Error when x and y differ in element count
  // or x and y are the same tensor.
  void record(const UnaryParams& params, const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gl
