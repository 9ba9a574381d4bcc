#include "backends/cpu/norm_kernels.h"

#include <algorithm>
#include <cstddef>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/norm_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Four vector accumulators hide the add latency; a block of this many elements bounds the
// float rounding before each partial sum moves to double.
constexpr size_t kBlock = 2048;

template <class VecTerm, class ScalarTerm>
HWY_INLINE double blocked_sum(const float* x, int64_t n, VecTerm vec_term, ScalarTerm scalar_term) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  double total = 0.0;
  size_t i = 0;
  while (i < count) {
    const size_t end = std::min(count, i + kBlock);
    V a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * lanes <= end; i += 4 * lanes) {
      a0 = hn::Add(a0, vec_term(d, hn::LoadU(d, x + i)));
      a1 = hn::Add(a1, vec_term(d, hn::LoadU(d, x + i + lanes)));
      a2 = hn::Add(a2, vec_term(d, hn::LoadU(d, x + i + 2 * lanes)));
      a3 = hn::Add(a3, vec_term(d, hn::LoadU(d, x + i + 3 * lanes)));
    }
    for (; i + lanes <= end; i += lanes) a0 = hn::Add(a0, vec_term(d, hn::LoadU(d, x + i)));
    float tail = 0.0f;
    for (; i < end; ++i) tail += scalar_term(x[i]);
    const V sum = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, sum))) + static_cast<double>(tail);
  }
  return total;
}

double sum_f32(const float* x, int64_t n) {
  return blocked_sum(
      x, n, [](D, V v) { return v; }, [](float v) { return v; });
}

double sum_squares_f32(const float* x, int64_t n) {
  return blocked_sum(
      x, n, [](D, V v) { return hn::Mul(v, v); }, [](float v) { return v * v; });
}

double sum_squared_deviations_f32(const float* x, int64_t n, float center) {
  const D d;
  const V c = hn::Set(d, center);
  return blocked_sum(
      x, n,
      [c](D, V v) {
        const V t = hn::Sub(v, c);
        return hn::Mul(t, t);
      },
      [center](float v) { return (v - center) * (v - center); });
}

void scale_shift_f32(const float* x, float* y, int64_t n, float a, float b) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const V va = hn::Set(d, a), vb = hn::Set(d, b);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), va, vb), d, y + i);
  }
  for (; i < count; ++i) y[i] = x[i] * a + b;
}

void scale_shift_affine_f32(const float* x, float* y, int64_t n, float a, float b,
                            const float* scale, const float* bias) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  const V va = hn::Set(d, a), vb = hn::Set(d, b);
  size_t i = 0;
  if (bias) {
    for (; i + lanes <= count; i += lanes) {
      const V t = hn::MulAdd(hn::LoadU(d, x + i), va, vb);
      hn::StoreU(hn::MulAdd(t, hn::LoadU(d, scale + i), hn::LoadU(d, bias + i)), d, y + i);
    }
    for (; i < count; ++i) y[i] = (x[i] * a + b) * scale[i] + bias[i];
  } else {
    for (; i + lanes <= count; i += lanes) {
      const V t = hn::MulAdd(hn::LoadU(d, x + i), va, vb);
      hn::StoreU(hn::Mul(t, hn::LoadU(d, scale + i)), d, y + i);
    }
    for (; i < count; ++i) y[i] = (x[i] * a + b) * scale[i];
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(sum_f32);
HWY_EXPORT(sum_squares_f32);
HWY_EXPORT(sum_squared_deviations_f32);
HWY_EXPORT(scale_shift_f32);
HWY_EXPORT(scale_shift_affine_f32);

double sum_f32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(sum_f32)(x, n); }
double sum_squares_f32(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(sum_squares_f32)(x, n);
}
double sum_squared_deviations_f32(const float* x, int64_t n, float center) {
  return HWY_DYNAMIC_DISPATCH(sum_squared_deviations_f32)(x, n, center);
}
void scale_shift_f32(const float* x, float* y, int64_t n, float a, float b) {
  HWY_DYNAMIC_DISPATCH(scale_shift_f32)(x, y, n, a, b);
}
void scale_shift_affine_f32(const float* x, float* y, int64_t n, float a, float b,
                            const float* scale, const float* bias) {
  HWY_DYNAMIC_DISPATCH(scale_shift_affine_f32)(x, y, n, a, b, scale, bias);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
