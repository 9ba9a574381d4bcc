#include "backends/gl/unary_elementwise.h"

#include <string>

#include "backends/gl/draw.h"
#include "backends/gl/program.h"
#include "backends/gl/shader_math.h"
#include "kiln/error.h"

namespace kiln::gl {
namespace {

// OP_<NAME> selects the op at compile time: one small program per op, built on first use.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform float u_alpha;  // LeakyRelu, Elu, Selu, Celu, HardSigmoid, ThresholdedRelu, Swish;
                        // Clip min; DivideBy divisor
uniform float u_beta;   // Selu gamma; HardSigmoid beta; Clip max

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
// |n| < 2^13), then Taylor polynomials on |r| <= pi/4. Beyond about 1e4 the reduction loses
// digits.
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

// erfc(t) for t >= 2 from its continued fraction, evaluated backwards at a fixed depth.
float erfc_large(float t) {
  float f = t;
  for (int k = 60; k >= 1; --k) f = t + float(k) * 0.5 / f;
  return exp_(-t * t) / (1.7724538509 * f);
}

// erf(t) for |t| < 2 from 2/sqrt(pi) e^(-t^2) sum 2^k t^(2k+1) / (2k+1)!!: positive terms, no
// cancellation, unlike the plain Taylor series.
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
float gelu(float v) {
  float t = v * 0.70710678118654752;
  // -inf gives NaN (-inf times 0), as the CPU op's formula does.
  if (isinf(v)) return v > 0.0 ? v : nan_value();
  if (t > -2.0) return 0.5 * v * (1.0 + erf_(t));
  return t < -10.0 ? -0.0 : 0.5 * v * erfc_large(-t);
}

float apply(float v) {
  // NaN in, NaN out for every op but ThresholdedRelu (x > alpha is false for NaN), as on the
  // CPU; GLSL leaves min, max, clamp and sign of NaN undefined.
#if defined(OP_THRESHOLDED_RELU)
  if (isnan(v)) return 0.0;
#else
  if (isnan(v)) return v;
#endif
#if defined(OP_ABS)
  return abs(v);
#elif defined(OP_NEG)
  return -v;
#elif defined(OP_EXP)
  return exp_(v);
#elif defined(OP_LOG)
  return log_(v);
#elif defined(OP_SQRT)
  return v < 0.0 ? nan_value() : sqrt(v);
#elif defined(OP_RECIPROCAL)
  return 1.0 / v;
#elif defined(OP_SIN)
  return sin_cos(v, false);
#elif defined(OP_COS)
  return sin_cos(v, true);
#elif defined(OP_TANH)
  return tanh_(v);
#elif defined(OP_SIGMOID)
  return sigmoid_(v);
#elif defined(OP_RELU)
  return v < 0.0 ? 0.0 : v;
#elif defined(OP_LEAKY_RELU)
  return v < 0.0 ? u_alpha * v : v;
#elif defined(OP_ELU)
  return v < 0.0 ? u_alpha * expm1_(v) : v;
#elif defined(OP_SELU)
  return v > 0.0 ? u_beta * v : u_beta * u_alpha * expm1_(v);
#elif defined(OP_CELU)
  return v > 0.0 ? v : u_alpha * expm1_(v / u_alpha);
#elif defined(OP_HARD_SIGMOID)
  return clamp(u_alpha * v + u_beta, 0.0, 1.0);
#elif defined(OP_HARD_SWISH)
  return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
#elif defined(OP_SOFTPLUS)
  return softplus_(v);
#elif defined(OP_SOFTSIGN)
  return v / (1.0 + abs(v));
#elif defined(OP_GELU)
  return gelu(v);
#elif defined(OP_GELU_TANH)
  return 0.5 * v * (1.0 + tanh_(0.7978845608028654 * (v + 0.044715 * v * v * v)));
#elif defined(OP_ERF)
  return erf_(v);
#elif defined(OP_FLOOR)
  return floor(v);
#elif defined(OP_CEIL)
  return ceil(v);
#elif defined(OP_ROUND)
  return roundEven(v);  // ONNX rounds halves to even
#elif defined(OP_SIGN)
  return sign(v);
#elif defined(OP_CLIP)
  return min(max(v, u_alpha), u_beta);
#elif defined(OP_MISH)
  return v * tanh_(softplus_(v));
#elif defined(OP_THRESHOLDED_RELU)
  return v > u_alpha ? v : 0.0;
#elif defined(OP_SWISH)
  return v * sigmoid_(u_alpha * v);
#elif defined(OP_DIVIDE_BY)
  return v / u_alpha;
#endif
}

void main() {
  vec4 v = fetch_texel(x, x_width, output_texel());
  out_texel = finish_texel(vec4(apply(v.x), apply(v.y), apply(v.z), apply(v.w)));
}
)";

struct OpName {
  const char* onnx;
  const char* define;
};

OpName name_of(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs:
      return {"Abs", "OP_ABS"};
    case UnaryOp::Neg:
      return {"Neg", "OP_NEG"};
    case UnaryOp::Exp:
      return {"Exp", "OP_EXP"};
    case UnaryOp::Log:
      return {"Log", "OP_LOG"};
    case UnaryOp::Sqrt:
      return {"Sqrt", "OP_SQRT"};
    case UnaryOp::Reciprocal:
      return {"Reciprocal", "OP_RECIPROCAL"};
    case UnaryOp::Sin:
      return {"Sin", "OP_SIN"};
    case UnaryOp::Cos:
      return {"Cos", "OP_COS"};
    case UnaryOp::Tanh:
      return {"Tanh", "OP_TANH"};
    case UnaryOp::Sigmoid:
      return {"Sigmoid", "OP_SIGMOID"};
    case UnaryOp::Relu:
      return {"Relu", "OP_RELU"};
    case UnaryOp::LeakyRelu:
      return {"LeakyRelu", "OP_LEAKY_RELU"};
    case UnaryOp::Elu:
      return {"Elu", "OP_ELU"};
    case UnaryOp::Selu:
      return {"Selu", "OP_SELU"};
    case UnaryOp::Celu:
      return {"Celu", "OP_CELU"};
    case UnaryOp::HardSigmoid:
      return {"HardSigmoid", "OP_HARD_SIGMOID"};
    case UnaryOp::HardSwish:
      return {"HardSwish", "OP_HARD_SWISH"};
    case UnaryOp::Softplus:
      return {"Softplus", "OP_SOFTPLUS"};
    case UnaryOp::Softsign:
      return {"Softsign", "OP_SOFTSIGN"};
    case UnaryOp::Gelu:
      return {"Gelu", "OP_GELU"};
    case UnaryOp::GeluTanh:
      return {"GeluTanh", "OP_GELU_TANH"};
    case UnaryOp::Erf:
      return {"Erf", "OP_ERF"};
    case UnaryOp::Floor:
      return {"Floor", "OP_FLOOR"};
    case UnaryOp::Ceil:
      return {"Ceil", "OP_CEIL"};
    case UnaryOp::Round:
      return {"Round", "OP_ROUND"};
    case UnaryOp::Sign:
      return {"Sign", "OP_SIGN"};
    case UnaryOp::Clip:
      return {"Clip", "OP_CLIP"};
    case UnaryOp::Mish:
      return {"Mish", "OP_MISH"};
    case UnaryOp::ThresholdedRelu:
      return {"ThresholdedRelu", "OP_THRESHOLDED_RELU"};
    case UnaryOp::Swish:
      return {"Swish", "OP_SWISH"};
    case UnaryOp::DivideBy:
      return {"DivideBy", "OP_DIVIDE_BY"};
  }
  throw Error("unary op on OpenGL ES: unknown op code");
}

}  // namespace

const char* to_string(UnaryOp op) { return name_of(op).onnx; }

void UnaryElementwise::record(const UnaryParams& params, const TextureTensor& x,
                              TextureTensor& y) const {
  const OpName name = name_of(params.op);
  const std::string where = std::string(name.onnx) + " on OpenGL ES";
  check(x.element_count() == y.element_count(),
        where + ": input of " + std::to_string(x.element_count()) + " elements, output of " +
            std::to_string(y.element_count()));
  check(params.op != UnaryOp::Celu || params.alpha != 0.0f, where + ": alpha must not be 0");
  if (x.element_count() == 0) return;
  const Program& program = context_.programs().get("unary_elementwise", name.onnx,
                                                   std::string("#define ") + name.define + "\n",
                                                   std::string(kExpFunctions) + kShader);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs, [&] {
    program.set("u_alpha", params.alpha);
    program.set("u_beta", params.beta);
  });
}

}  // namespace kiln::gl
