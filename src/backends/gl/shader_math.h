// GLSL exponential functions that several kernels share, written out because GLSL ES leaves the
// precision of the built-in exp and tanh to the driver:
//
//   float exp_(float v); float expm1_(float v); float tanh_(float v); float sigmoid_(float v);
//
//   programs.get("lstm", variant, defines, std::string(kExpFunctions) + kShader + kElementMain);
#pragma once

namespace kiln::gl {

inline constexpr const char* kExpFunctions = R"(
// e^v: Cody-Waite reduction by ln 2 (the high part has few bits, so n * LN2_HI is exact) and a
// degree-7 polynomial on |r| <= ln(2)/2.
float exp_(float v) {
  if (isnan(v)) return v;
  if (v > 88.72284) return inf_value();
  if (v < -103.972) return 0.0;
  float n = roundEven(v * 1.44269504);
  float r = (v - n * 0.693359375) - n * -2.12194440e-4;
  float q = 1.9875691500e-4;
  q = q * r + 1.3981999507e-3;
  q = q * r + 8.3334519073e-3;
  q = q * r + 4.1665795894e-2;
  q = q * r + 1.6666665459e-1;
  q = q * r + 5.0000001201e-1;
  return scale_by_pow2(q * r * r + r + 1.0, int(n));
}

// e^v - 1 without the cancellation near 0 (Elu, Selu and Celu are defined with expm1).
float expm1_(float v) {
  if (abs(v) >= 0.5) return exp_(v) - 1.0;
  float t = 1.0;  // Horner form of the Taylor series to v^11
  for (int k = 11; k >= 2; --k) t = 1.0 + t * v / float(k);
  return v * t;
}

float tanh_(float v) {
  if (abs(v) > 9.1) return sign(v);  // tanh rounds to +-1 in float32 from here on
  float e = expm1_(2.0 * v);
  return e / (e + 2.0);
}

float sigmoid_(float v) { return 1.0 / (1.0 + exp_(-v)); }
)";

}  // namespace kiln::gl
