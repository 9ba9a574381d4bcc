// GLSL math that both GPU backends share, written out because Vulkan and GLSL ES leave the
// precision of the built-in exp, log, tanh, sin and cos to the driver (sin and cos only to an
// absolute 2^-11) and GLSL has no erf at all. Each function holds about 1e-7 relative on any
// device. Read by glslc (Vulkan shaders #include it) and embedded as text into the OpenGL ES
// programs (shader_sources.h), so it is written in the GLSL both accept: no `const` locals
// (GLSL ES wants constant initializers there), no ldexp/frexp (not in GLSL ES 3.0).
//
// The includer provides the float-bit helpers:
//   float nan_value(); float inf_value();
//   int exponent_of(float v);          // the unbiased exponent of a normal float
//   float scale_by_pow2(float v, int k);  // v 2^k, exact while the result is normal

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
  float t = 1.0;  // Horner form of the Taylor series to v^11: the next term is below 1e-10
  for (int k = 11; k >= 2; --k) t = 1.0 + t * v / float(k);
  return v * t;
}

float tanh_(float v) {
  if (abs(v) > 9.1) return sign(v);  // tanh rounds to +-1 in float32 from here on
  float e = expm1_(2.0 * v);
  return e / (e + 2.0);
}

float sigmoid_(float v) { return 1.0 / (1.0 + exp_(-v)); }

// log v = e ln 2 + log m with m in [sqrt(1/2), sqrt 2), log m = 2 atanh(s), s = (m-1)/(m+1).
float log_(float v) {
  if (isnan(v) || v < 0.0) return nan_value();
  if (v == 0.0) return -inf_value();
  if (isinf(v)) return v;
  int e = 0;
  if (v < 1.17549435e-38) {  // subnormal: scale into the normal range first
    v *= 16777216.0;
    e = -24;
  }
  e += exponent_of(v);
  float m = uintBitsToFloat((floatBitsToUint(v) & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356) {
    m *= 0.5;
    e += 1;
  }
  float s = (m - 1.0) / (m + 1.0);
  float s2 = s * s;
  float p = s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 / 11.0))));
  float fe = float(e);
  return fe * 0.693359375 + ((2.0 * s + 2.0 * s * p) + fe * -2.12194440e-4);
}

// log(1 + u) without losing a small u: log(1 + u) = 2 atanh(u / (2 + u)), whose series has no
// cancellation. The usual log(w) u / (w - 1) trick with w = 1 + u does not survive shader
// compilers, which may simplify (1 + u) - 1 to u.
float log1p_(float u) {
  if (abs(u) > 0.5) return log_(1.0 + u);
  float s = u / (2.0 + u);
  float s2 = s * s;
  float p = 1.0 / 13.0 + s2 / 15.0;
  p = 1.0 / 11.0 + s2 * p;
  p = 1.0 / 9.0 + s2 * p;
  p = 1.0 / 7.0 + s2 * p;
  p = 1.0 / 5.0 + s2 * p;
  p = 1.0 / 3.0 + s2 * p;
  return 2.0 * s + 2.0 * s * (s2 * p);
}

float softplus_(float v) { return v > 0.0 ? v + log1p_(exp_(-v)) : log1p_(exp_(v)); }

// sin and cos share a reduction by pi/2 in three parts (Cody-Waite, exact products for
// |n| < 2^13), then Taylor polynomials on |r| <= pi/4 with errors below 2e-9. Beyond about 1e4
// the reduction loses digits; there is no Payne-Hanek reduction here.
float sin_cos(float v, bool is_cos) {
  if (isnan(v) || isinf(v)) return nan_value();
  float n = roundEven(v * 0.636619772);
  float r = ((v - n * 1.5703125) - n * 4.837512969970703125e-4) - n * 7.54978995489188216e-8;
  float r2 = r * r;
  float s = r + r * r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 / 362880.0)));
  float c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 +
                                                        r2 * (1.0 / 40320.0 - r2 / 3628800.0))));
  int quadrant = (int(n) + (is_cos ? 1 : 0)) & 3;
  if (quadrant == 0) return s;
  if (quadrant == 1) return c;
  if (quadrant == 2) return -s;
  return -c;
}

// erfc(t) for t >= 2 from its continued fraction, evaluated backwards with a fixed depth that
// converges to float precision at t = 2 and faster beyond.
float erfc_large(float t) {
  float f = t;
  for (int k = 60; k >= 1; --k) f = t + float(k) * 0.5 / f;
  return exp_(-t * t) / (1.7724538509 * f);
}

// erf(t) for |t| < 2 from the series 2/sqrt(pi) e^(-t^2) sum 2^k t^(2k+1) / (2k+1)!!, whose
// terms are all positive: no cancellation, unlike the plain Taylor series.
float erf_small(float t) {
  float t2 = t * t;
  float term = t, sum = t;
  for (int k = 1; k < 40; ++k) {
    term *= 2.0 * t2 / float(2 * k + 1);
    sum += term;
  }
  return 1.1283791671 * exp_(-t2) * sum;
}

float erf_(float v) {
  float t = abs(v);
  if (t < 2.0) return erf_small(v);
  if (t > 10.0) return sign(v);
  return sign(v) * (1.0 - erfc_large(t));
}

// 0.5 x (1 + erf(x / sqrt 2)); for negative x, 1 + erf is erfc of the magnitude, computed
// directly so the small tail keeps its digits.
float gelu_(float v) {
  // -inf gives NaN (-inf times 0), as the CPU op's formula does.
  if (isinf(v)) return v > 0.0 ? v : nan_value();
  float t = v * 0.70710678118654752;
  if (t > -2.0) return 0.5 * v * (1.0 + erf_(t));
  return t < -10.0 ? -0.0 : 0.5 * v * erfc_large(-t);
}

// The hyperbolic functions and their inverses, and the inverse trigonometric ones, from exp_,
// expm1_, log_, log1p_ and a series for atan, so that they hold the same ~1e-7 relative as the
// functions above on any device (the built-ins' precision is the driver's). Odd functions work
// on |v| and put the sign back.
float sinh_(float v) {
  float a = abs(v);
  float r;
  if (a > 20.0) {
    float e = exp_(0.5 * a);  // e^a / 2 without overflowing before the result does
    r = (0.5 * e) * e;
  } else {
    float u = expm1_(a);  // (e^a - e^-a) / 2 with e^a - 1 kept exact for small a
    r = 0.5 * (u + u / (u + 1.0));
  }
  return v < 0.0 ? -r : r;
}

float cosh_(float v) {
  float a = abs(v);
  if (a > 20.0) {
    float e = exp_(0.5 * a);
    return (0.5 * e) * e;
  }
  float e = exp_(a);
  return 0.5 * (e + 1.0 / e);
}

// log(a + sqrt(a^2 + 1)) as log1p(a + a^2 / (1 + sqrt(a^2 + 1))), exact for small a.
float asinh_(float v) {
  float a = abs(v);
  float r = a > 1e18 ? log_(a) + 0.69314718055994531
                     : log1p_(a + a * a / (1.0 + sqrt(1.0 + a * a)));
  return v < 0.0 ? -r : r;
}

// log(v + sqrt(v^2 - 1)) as log1p(t + sqrt(t (v + 1))), t = v - 1, exact near 1.
float acosh_(float v) {
  if (v < 1.0) return nan_value();
  if (v > 1e18) return log_(v) + 0.69314718055994531;
  float t = v - 1.0;
  return log1p_(t + sqrt(t * (v + 1.0)));
}

// 0.5 log1p(2a / (1 - a)) on a = |v|: 1 - a is exact for a >= 0.5.
float atanh_(float v) {
  float a = abs(v);
  if (a > 1.0) return nan_value();
  float r = 0.5 * log1p_(2.0 * a / (1.0 - a));
  return v < 0.0 ? -r : r;
}

float tan_(float v) { return sin_cos(v, false) / sin_cos(v, true); }

// atan on |v|: 1/a above 1, then pi/4 + atan((a - 1) / (a + 1)) above tan(pi/8), leaving
// |t| <= 0.4143 for the odd Taylor series (its 12th term is below 1e-9).
float atan_(float v) {
  float a = abs(v);
  bool inverted = a > 1.0;
  if (inverted) a = 1.0 / a;
  bool shifted = a > 0.41421356;
  float t = shifted ? (a - 1.0) / (a + 1.0) : a;
  float t2 = t * t;
  float p = 1.0 / 23.0;
  for (int k = 10; k >= 0; --k) p = 1.0 / float(2 * k + 1) - t2 * p;
  float r = t * p;
  if (shifted) r += 0.78539816339744831;
  if (inverted) r = 1.57079632679489662 - r;
  return v < 0.0 ? -r : r;
}

float asin_(float v) {
  if (abs(v) > 1.0) return nan_value();
  return atan_(v / sqrt((1.0 - v) * (1.0 + v)));  // +-1 gives +-inf, so +-pi/2
}

float acos_(float v) {
  if (abs(v) > 1.0) return nan_value();
  return 2.0 * atan_(sqrt((1.0 - v) / (1.0 + v)));  // -1 gives inf, so pi
}
