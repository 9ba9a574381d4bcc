// Sums and products kept to about twice float's precision in a fragment shader, as a value and
// its rounding error (Dekker's and Knuth's error-free transformations), for draws whose CPU
// counterpart adds up in double (DFT, STFT, ...). The host side of the constants is
// gpu_common/wide_float.h.
//
// GLSL ES 3.00 has no `precise`, and Mesa's compiler rewrites inexact arithmetic: it folds
// (a + b) - a to b and fuses products into sums, which would turn every error term into zero.
// So each step whose rounding matters passes through opaque(), an exclusive-or of the bits with
// the uniform u_opaque_zero (0 at run time, unknown to the compiler): the compiler sees a new
// value it cannot rewrite across. Every draw with this text sets u_opaque_zero through
// set_wide_float_uniforms().
#pragma once

#include "backends/gpu_pixel/program.h"

namespace kiln::gpu_pixel {

inline constexpr const char* kWideFloatGlsl = R"(
uniform int u_opaque_zero;

float opaque(float v) { return intBitsToFloat(floatBitsToInt(v) ^ u_opaque_zero); }

// A value kept as hi + lo, |lo| far below hi's last bit.
struct Wide {
  float hi;
  float lo;
};

// a = a_hi + a_lo with each half of at most 12 significant bits (Veltkamp), so that a product
// of halves is exact in float.
void split(float a, out float a_hi, out float a_lo) {
  float t = opaque(4097.0 * a);
  float d = opaque(t - a);
  a_hi = opaque(t - d);
  a_lo = opaque(a - a_hi);
}

// The error of the rounded product prod = a * b, from the halves of a and b (Dekker).
float product_error(float a1, float a2, float b1, float b2, float prod) {
  float e = opaque(a1 * b1 - prod);
  e = opaque(e + a1 * b2);
  e = opaque(e + a2 * b1);
  return opaque(e + a2 * b2);
}

// a * b exactly, as the rounded product and its error.
Wide wide_mul(float a, float b) {
  float a1, a2, b1, b2;
  split(a, a1, a2);
  split(b, b1, b2);
  float prod = opaque(a * b);
  return Wide(prod, product_error(a1, a2, b1, b2, prod));
}

// a * b to about twice float's precision; b given by its 12-bit halves and rest.
Wide wide_product(Wide a, vec3 b) {
  float a1, a2;
  split(a.hi, a1, a2);
  float b_hi = opaque(b.x + b.y);
  float prod = opaque(a.hi * b_hi);
  float err = product_error(a1, a2, b.x, b.y, prod);
  return Wide(prod, err + a.hi * b.z + a.lo * b_hi);
}

// total + v (or - v): the high parts added exactly (Knuth's two-sum), the low ones plainly.
Wide wide_add(Wide total, Wide v, bool negate) {
  float b = negate ? -v.hi : v.hi;
  float s = opaque(total.hi + b);
  float bb = opaque(s - total.hi);
  float err = opaque(opaque(total.hi - opaque(s - bb)) + opaque(b - bb));
  return Wide(s, total.lo + (negate ? -v.lo : v.lo) + err);
}

// The sum rounded once to float.
float wide_value(Wide v) { return v.hi + v.lo; }
)";

// Sets the uniform kWideFloatGlsl reads (the program in use).
inline void set_wide_float_uniforms(const Program& program) { program.set("u_opaque_zero", 0); }

}  // namespace kiln::gpu_pixel
