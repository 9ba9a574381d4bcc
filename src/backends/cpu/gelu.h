// The two forms of GELU, shared by ai.onnx's Gelu and ONNX Runtime's Gelu, FastGelu and
// BiasGelu (com.microsoft): exact, x * Phi(x) with the normal CDF through erf, and the tanh
// approximation.
#pragma once

#include <cmath>

namespace kiln {

template <class C>
C gelu_exact(C x) {
  return C(0.5) * x * (C(1) + std::erf(x * C(0.7071067811865476)));  // x / sqrt(2)
}

template <class C>
C gelu_tanh(C x) {
  const C k = C(0.7978845608028654);  // sqrt(2 / pi)
  return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
}

}  // namespace kiln
