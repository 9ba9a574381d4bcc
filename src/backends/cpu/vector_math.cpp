#include "backends/cpu/vector_math.h"

#include <cstddef>
#include <cstring>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/vector_math.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Applies `f` to whole vectors, then to the tail through a padded stack buffer so that no
// lane reads or writes past the arrays.
template <class F>
HWY_INLINE void map_f32(const float* in, float* out, int64_t n, F f) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
  if (i < count) {
    HWY_ALIGN float buffer[HWY_MAX_BYTES / sizeof(float)] = {};
    const size_t rest = count - i;
    std::memcpy(buffer, in + i, rest * sizeof(float));
    hn::Store(f(d, hn::Load(d, buffer)), d, buffer);
    std::memcpy(out + i, buffer, rest * sizeof(float));
  }
}

// Highway's Exp is valid up to +104 and maps NaN to 0: fix overflow to +inf and keep NaN.
// (hn::Ne is an ordered compare, false for NaN, hence IsNaN.)
HWY_INLINE V exp_vec(D d, V x) {
  const V kOverflow = hn::Set(d, 88.72283935546875f);
  const V y = hn::Exp(d, hn::Min(x, hn::Set(d, 89.0f)));
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  const V r = hn::IfThenElse(hn::Gt(x, kOverflow), inf, y);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// Highway's Log is defined on (0, FLT_MAX]: add log(0) = -inf, log(<0) = NaN, log(inf) = inf.
HWY_INLINE V log_vec(D d, V x) {
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  const V zero = hn::Zero(d);
  const V safe = hn::IfThenElse(hn::Gt(x, zero), x, hn::Set(d, 1.0f));
  V r = hn::Log(d, safe);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  r = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Lt(x, zero), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

HWY_INLINE V tanh_vec(D d, V x) {
  // Clamp so that the expm1 inside stays in its valid range; tanh(+-20) is +-1 in float.
  const V clamped = hn::Min(hn::Max(x, hn::Set(d, -20.0f)), hn::Set(d, 20.0f));
  const V r = hn::Tanh(d, clamped);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// exp for the logistic function: Cody-Waite range reduction and Cephes' degree-6 polynomial
// (about 1 ulp), with the argument clamped so that 2^n needs no second scaling step. Half the
// instructions of the general exp_vec, which must also get the ends of the range exact; here
// exp(-x) only ends up in 1 / (1 + exp(-x)), where the clamp changes nothing beyond float
// precision: below -87 the sum is 1, and above 88.7 2^n is 2^128, whose bits are +inf, so
// that sigmoid(-inf) is 0 and SiLU(-inf) NaN, as with the exact formula.
HWY_INLINE V exp_for_sigmoid(D d, V x) {
  const hn::RebindToSigned<D> di;
  x = hn::Min(hn::Max(x, hn::Set(d, -87.0f)), hn::Set(d, 89.0f));
  // n = round(x / ln 2) by the shifter trick: adding 1.5 * 2^23 (+ the exponent bias 127)
  // rounds to an integer that then sits in the low mantissa bits, from where it shifts into
  // the exponent field of 2^n (cheaper than a round and a checked float-to-int conversion).
  const V shifter = hn::Set(d, 12582912.0f + 127.0f);
  const V biased = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), shifter);
  const V n = hn::Sub(biased, shifter);
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);
  r = hn::NegMulAdd(n, hn::Set(d, -2.12194440e-4f), r);
  V p = hn::Set(d, 1.9875691500e-4f);
  p = hn::MulAdd(p, r, hn::Set(d, 1.3981999507e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 8.3334519073e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.1665795894e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666665459e-1f));
  p = hn::MulAdd(p, r, hn::Set(d, 5.0000001201e-1f));
  const V one = hn::Set(d, 1.0f);
  const V e = hn::Add(hn::MulAdd(p, hn::Mul(r, r), r), one);
  const auto bits = hn::ShiftLeft<23>(hn::BitCast(di, biased));
  return hn::Mul(e, hn::BitCast(d, bits));
}

HWY_INLINE V sigmoid_vec(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V r = hn::Div(one, hn::Add(one, exp_for_sigmoid(d, hn::Neg(x))));
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// erf, odd: for |x| < 0.5 its Taylor series to x^15 (the first omitted term is below 1e-9 of
// the value, so small arguments keep their full relative precision); above, 1 - erfc with
// erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z / 2), the Chebyshev fit of Numerical Recipes
// (erfcc), good to 1.2e-7 of erfc, which is at most 0.48 there: a few ulp of erf. Beyond
// |x| = 4 erf is 1 in float. GELU spelled out op by op (x * 0.5 * (1 + erf(x / sqrt 2)))
// spends most of its time here.
HWY_INLINE V erf_vec(D d, V x) {
  const V ax = hn::Min(hn::Abs(x), hn::Set(d, 4.0f));
  const V x2 = hn::Mul(ax, ax);
  // 2/sqrt(pi) * (1 - x^2/3 + x^4/10 - x^6/42 + x^8/216 - x^10/1320 + x^12/9360 - x^14/75600)
  V s = hn::Set(d, static_cast<float>(-1.1283791670955126 / 75600));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(1.1283791670955126 / 9360)));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(-1.1283791670955126 / 1320)));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(1.1283791670955126 / 216)));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(-1.1283791670955126 / 42)));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(1.1283791670955126 / 10)));
  s = hn::MulAdd(s, x2, hn::Set(d, static_cast<float>(-1.1283791670955126 / 3)));
  s = hn::MulAdd(s, x2, hn::Set(d, 1.1283791670955126f));
  const V small = hn::Mul(s, ax);
  const V one = hn::Set(d, 1.0f);
  const V t = hn::Div(one, hn::MulAdd(hn::Set(d, 0.5f), ax, one));
  V q = hn::Set(d, 0.17087277f);
  q = hn::MulAdd(q, t, hn::Set(d, -0.82215223f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.48851587f));
  q = hn::MulAdd(q, t, hn::Set(d, -1.13520398f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.27886807f));
  q = hn::MulAdd(q, t, hn::Set(d, -0.18628806f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.09678418f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.37409196f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.00002368f));
  q = hn::MulAdd(q, t, hn::Set(d, -1.26551223f));
  const V erfc = hn::Mul(t, exp_for_sigmoid(d, hn::Sub(q, x2)));
  const V large = hn::Sub(one, erfc);
  const V r = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.5f)), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySignToAbs(r, x));
}

void exp_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return exp_vec(d, x); });
}
void log_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return log_vec(d, x); });
}
void tanh_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return tanh_vec(d, x); });
}
void sigmoid_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return sigmoid_vec(d, x); });
}
void silu_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return hn::Mul(x, sigmoid_vec(d, x)); });
}
void erf_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR { return erf_vec(d, x); });
}
void gelu_f32(const float* in, float* out, int64_t n) {
  map_f32(in, out, n, [](D d, V x) HWY_ATTR {
    const V half_x = hn::Mul(hn::Set(d, 0.5f), x);
    const V e = erf_vec(d, hn::Mul(x, hn::Set(d, 0.7071067811865476f)));
    return hn::MulAdd(half_x, e, half_x);  // 0.5 x (1 + erf(x / sqrt 2))
  });
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(exp_f32);
HWY_EXPORT(log_f32);
HWY_EXPORT(tanh_f32);
HWY_EXPORT(sigmoid_f32);
HWY_EXPORT(silu_f32);
HWY_EXPORT(erf_f32);
HWY_EXPORT(gelu_f32);

void exp_f32(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(exp_f32)(in, out, n); }
void log_f32(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(log_f32)(in, out, n); }
void tanh_f32(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(tanh_f32)(in, out, n);
}
void sigmoid_f32(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(sigmoid_f32)(in, out, n);
}
void erf_f32(const float* in, float* out, int64_t n) { HWY_DYNAMIC_DISPATCH(erf_f32)(in, out, n); }
void gelu_f32(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(gelu_f32)(in, out, n);
}
void silu_f32(const float* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(silu_f32)(in, out, n);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
