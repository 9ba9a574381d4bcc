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

namespace kiln::gl {

enum class UnaryOp {
  Abs,
  Neg,
  Exp,
  Log,
  Sqrt,
  Reciprocal,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Relu,
  LeakyRelu,        // alpha
  Elu,              // alpha
  Selu,             // alpha, gamma (in beta)
  Celu,             // alpha (not 0)
  HardSigmoid,      // alpha, beta
  HardSwish,        //
  Softplus,         //
  Softsign,         //
  Gelu,             // the exact (erf) form
  GeluTanh,         // Gelu with approximate="tanh"
  Erf,              //
  Floor,            //
  Ceil,             //
  Round,            // halves to even
  Sign,             //
  Clip,             // min (in alpha), max (in beta)
  Mish,             //
  ThresholdedRelu,  // alpha
  Swish,            // alpha
  DivideBy,         // alpha (Mean's input count)
};
const char* to_string(UnaryOp op);

// An op with its parameters; ops without parameters ignore alpha and beta.
struct UnaryParams {
  UnaryOp op = UnaryOp::Abs;
  float alpha = 0.0f;
  float beta = 0.0f;
};

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
