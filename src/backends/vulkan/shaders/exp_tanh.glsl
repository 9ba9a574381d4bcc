// e^v, e^v - 1 and tanh to about 1e-7 relative on any device: Vulkan lets the built-in exp and
// tanh be far less accurate than kiln's CPU ops. Shared by unary_elementwise.comp and
// lstm_step.comp.

float inf() { return uintBitsToFloat(0x7f800000u); }

// e^v: Cody-Waite reduction by ln 2 (the high part has few bits, so n * LN2_HI is exact), a
// degree-7 polynomial on |r| <= ln(2)/2, and the scaling by 2^n split in two so that neither
// ldexp leaves the range GLSL defines.
float exp_(float v) {
  if (isnan(v)) return v;
  if (v > 88.72284) return inf();
  if (v < -103.972) return 0.0;
  const float n = roundEven(v * 1.44269504);
  const float r = (v - n * 0.693359375) - n * -2.12194440e-4;
  float q = 1.9875691500e-4;
  q = q * r + 1.3981999507e-3;
  q = q * r + 8.3334519073e-3;
  q = q * r + 4.1665795894e-2;
  q = q * r + 1.6666665459e-1;
  q = q * r + 5.0000001201e-1;
  const float e = q * r * r + r + 1.0;
  const int k = int(n), half_k = k / 2;
  return ldexp(ldexp(e, half_k), k - half_k);
}

// e^v - 1 without the cancellation near 0 (Elu and Selu are defined with expm1).
float expm1_(float v) {
  if (abs(v) >= 0.5) return exp_(v) - 1.0;
  // Horner form of the Taylor series to v^11: the next term is below 1e-10 relative.
  float t = 1.0;
  for (int k = 11; k >= 2; --k) t = 1.0 + t * v / float(k);
  return v * t;
}

float tanh_(float v) {
  if (abs(v) > 9.1) return sign(v);  // tanh rounds to +-1 in float32 from here on
  const float e = expm1_(2.0 * v);
  return e / (e + 2.0);
}
