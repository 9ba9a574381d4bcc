#include "backends/cpu/norm_kernels.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

// Eight independent float accumulators let the compiler keep them in vector registers (it may
// not reorder a single float sum); a block of this many elements bounds the float rounding
// before the partial sums move to double.
constexpr int kLanes = 8;
constexpr int64_t kBlock = 2048;

template <class Term>
double blocked_sum(int64_t n, Term term) {
  double total = 0.0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    float acc[kLanes] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) acc[j] += term(i + j);
    }
    float tail = 0.0f;
    for (; i < end; ++i) tail += term(i);
    double block = tail;
    for (int j = 0; j < kLanes; ++j) block += acc[j];
    total += block;
  }
  return total;
}

}  // namespace

double sum_f32(const float* x, int64_t n) {
  return blocked_sum(n, [x](int64_t i) { return x[i]; });
}

double sum_squares_f32(const float* x, int64_t n) {
  return blocked_sum(n, [x](int64_t i) { return x[i] * x[i]; });
}

double sum_squared_deviations_f32(const float* x, int64_t n, float center) {
  return blocked_sum(n, [x, center](int64_t i) {
    const float d = x[i] - center;
    return d * d;
  });
}

void scale_shift_f32(const float* x, float* y, int64_t n, float a, float b) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}

void scale_shift_affine_f32(const float* x, float* y, int64_t n, float a, float b,
                            const float* scale, const float* bias) {
  if (bias) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] * a + b) * scale[i] + bias[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] * a + b) * scale[i];
  }
}

}  // namespace kiln::cpu
