#version 450
// y = f(x) for float32, f chosen by a push constant so one pipeline serves every unary op and
// activation. Vulkan lets exp, sin, cos and tanh be far less accurate than kiln's CPU ops (sin
// and cos only to 2^-11 absolute), so those are computed here from range reductions and
// polynomials that hold about 1e-7 relative on any device; GLSL has no erf at all.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match UnaryPushConstants in unary_elementwise.h.
layout(push_constant) uniform Params {
  uint op;      // UnaryOp
  uint count;   // elements
  float alpha;  // LeakyRelu, Elu, Selu, HardSigmoid alpha; Clip min
  float beta;   // Selu gamma; HardSigmoid beta; Clip max
} p;

const uint ABS = 0, NEG = 1, EXP = 2, LOG = 3, SQRT = 4, RECIPROCAL = 5, SIN = 6, COS = 7,
           TANH = 8, SIGMOID = 9, RELU = 10, LEAKY_RELU = 11, ELU = 12, SELU = 13,
           HARD_SIGMOID = 14, HARD_SWISH = 15, SOFTPLUS = 16, SOFTSIGN = 17, GELU = 18, ERF = 19,
           FLOOR = 20, CEIL = 21, ROUND = 22, SIGN = 23, CLIP = 24,
           DIVIDE_BY = 25;

#include "exp_tanh.glsl"

// log(1 + u) without losing a small u: log(w) * u / (w - 1) cancels w's rounding error.
float log1p_(float u) {
  const float w = 1.0 + u;
  return w == 1.0 ? u : log(w) * u / (w - 1.0);
}

// sin and cos share a reduction by pi/2 in three parts (Cody-Waite, exact products for
// |n| < 2^13), then Taylor polynomials on |r| <= pi/4 with errors below 2e-9. Beyond about 1e4
// the reduction loses digits; there is no Payne-Hanek reduction here.
float sin_cos(float v, bool is_cos) {
  if (isnan(v) || isinf(v)) return uintBitsToFloat(0x7fc00000u);
  const float n = roundEven(v * 0.636619772);
  const float r =
      ((v - n * 1.5703125) - n * 4.837512969970703125e-4) - n * 7.54978995489188216e-8;
  const float r2 = r * r;
  const float s =
      r + r * r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 / 362880.0)));
  const float c =
      1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 +
                                                   r2 * (1.0 / 40320.0 - r2 / 3628800.0))));
  const uint quadrant = (uint(int(n) & 3) + (is_cos ? 1u : 0u)) & 3u;
  if (quadrant == 0u) return s;
  if (quadrant == 1u) return c;
  if (quadrant == 2u) return -s;
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
  const float t2 = t * t;
  float term = t, sum = t;
  for (int k = 1; k < 40; ++k) {
    term *= 2.0 * t2 / float(2 * k + 1);
    sum += term;
  }
  return 1.1283791671 * exp_(-t2) * sum;
}

float erf_(float v) {
  if (isnan(v)) return v;
  const float t = abs(v);
  if (t < 2.0) return erf_small(v);
  if (t > 10.0) return sign(v);
  return sign(v) * (1.0 - erfc_large(t));
}

// 0.5 x (1 + erf(x / sqrt 2)); for negative x, 1 + erf is erfc of the magnitude, computed
// directly so the small tail keeps its digits.
float gelu(float v) {
  const float t = v * 0.70710678118654752;
  if (t > -2.0) return 0.5 * v * (1.0 + erf_(t));
  return t < -10.0 ? -0.0 : 0.5 * v * erfc_large(-t);
}

float apply(float v) {
  // NaN in, NaN out for every op, as on the CPU; GLSL leaves min, max, clamp and sign of NaN
  // undefined.
  if (isnan(v)) return v;
  switch (p.op) {
    case ABS: return abs(v);
    case NEG: return -v;
    case EXP: return exp_(v);
    case LOG: return log(v);
    case SQRT: return sqrt(v);
    case RECIPROCAL: return 1.0 / v;
    case SIN: return sin_cos(v, false);
    case COS: return sin_cos(v, true);
    case TANH: return tanh_(v);
    case SIGMOID: return 1.0 / (1.0 + exp_(-v));
    case RELU: return v < 0.0 ? 0.0 : v;  // keeps NaN, as the CPU op does
    case LEAKY_RELU: return v < 0.0 ? p.alpha * v : v;
    case ELU: return v < 0.0 ? p.alpha * expm1_(v) : v;
    case SELU: return v > 0.0 ? p.beta * v : p.beta * p.alpha * expm1_(v);
    case HARD_SIGMOID: return clamp(p.alpha * v + p.beta, 0.0, 1.0);
    case HARD_SWISH: return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
    case SOFTPLUS: return v > 0.0 ? v + log1p_(exp_(-v)) : log1p_(exp_(v));
    case SOFTSIGN: return v / (1.0 + abs(v));
    case GELU: return gelu(v);
    case ERF: return erf_(v);
    case FLOOR: return floor(v);
    case CEIL: return ceil(v);
    case ROUND: return roundEven(v);  // ONNX rounds halves to even
    case SIGN: return sign(v);
    case CLIP: return min(max(v, p.alpha), p.beta);
    default: return v / p.alpha;  // DIVIDE_BY
  }
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  y[i] = apply(x[i]);
}
