#include "backends/cpu/pool_max_row.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/pool_max_row.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

inline float max_tap(float best, float v) { return v > best ? v : best; }

// The same rule on vectors. x86's maxps is exactly it (it returns its first operand only when
// that compares greater, so also when the second is a NaN): one instruction for a compare and
// a blend. (Only on the x86 targets, whose Max is maxps: EMU128's follows other NaN rules.)
template <class V>
HWY_INLINE V max_tap(V best, V v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  return hn::Max(v, best);
#else
  return hn::IfThenElse(hn::Gt(v, best), v, best);
#endif
}

// How a vector of output columns reads a tap's inputs at p (column c * stride + j * dilation of
// the first lane's window).
enum class Taps {
  kContiguous,  // stride 1: one load
  kEven,        // stride 2: the even lanes of two loads from p, which read one column past the
                // last lane's window
  kOddBefore,   // stride 2: the odd lanes of two loads from p - 1, which read one column before
                // the first lane's window instead
};

// Out[c, c + lanes) with kernel width kWidth (0: kernel_width, known at run time only).
template <class D, Taps kTaps, int64_t kWidth>
HWY_INLINE void max_vector(const float* const* rows, int64_t row_count, int64_t kernel_width,
                           int64_t dilation, int64_t c, float* out) {
  const D d;
  [[maybe_unused]] const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kStride = kTaps == Taps::kContiguous ? 1 : 2;
  const auto tap = [&](const float* p) HWY_ATTR {
#if HWY_TARGET == HWY_SCALAR
    return hn::LoadU(d, p);
#else
    if constexpr (kTaps == Taps::kContiguous) {
      return hn::LoadU(d, p);
    } else if constexpr (kTaps == Taps::kEven) {
      return hn::ConcatEven(d, hn::LoadU(d, p + lanes), hn::LoadU(d, p));
    } else {
      return hn::ConcatOdd(d, hn::LoadU(d, p + lanes - 1), hn::LoadU(d, p - 1));
    }
#endif
  };
  const int64_t width = kWidth > 0 ? kWidth : kernel_width;
  auto best = tap(rows[0] + c * kStride);
  for (int64_t i = 0; i < row_count; ++i) {
    const float* row = rows[i] + c * kStride;
#pragma GCC unroll 4
    for (int64_t j = i == 0 ? 1 : 0; j < width; ++j) best = max_tap(best, tap(row + j * dilation));
  }
  hn::StoreU(best, d, out + c);
}

// Columns [c_begin, c_end) in whole vectors. Where the columns do not divide into vectors, the
// last vector ends at c_end and overlaps the one before (its columns computed twice, alike),
// so that no column is left to the scalar loop unless the row is narrower than a vector.
// Returns the first column not done.
template <class D, int64_t kStride, int64_t kWidth>
int64_t max_row_vectors(const float* const* rows, int64_t row_count, int64_t kernel_width,
                        int64_t dilation, int64_t c_begin, int64_t c_end, float* out) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  int64_t c = c_begin;
  if constexpr (kStride == 1) {
    for (; c + lanes <= c_end; c += lanes) {
      max_vector<D, Taps::kContiguous, kWidth>(rows, row_count, kernel_width, dilation, c, out);
    }
    if (c < c_end && c_end - c_begin >= lanes) {
      max_vector<D, Taps::kContiguous, kWidth>(rows, row_count, kernel_width, dilation,
                                               c_end - lanes, out);
      c = c_end;
    }
  } else {
    // A vector that reads one column past its last window needs the row to have that column:
    // keep the last column out of these.
    for (; c + lanes <= c_end - 1; c += lanes) {
      max_vector<D, Taps::kEven, kWidth>(rows, row_count, kernel_width, dilation, c, out);
    }
    // The last vector reads one column before its first window instead, which is inside the
    // row when that window is not the first.
    if (c < c_end && c_end - lanes > c_begin) {
      max_vector<D, Taps::kOddBefore, kWidth>(rows, row_count, kernel_width, dilation,
                                              c_end - lanes, out);
      c = c_end;
    }
  }
  return c;
}

// Kernel widths 2 and 3 (nearly every network's pools) get their taps unrolled.
template <class D, int64_t kStride>
int64_t max_row_any_width(const float* const* rows, int64_t row_count, int64_t kernel_width,
                          int64_t dilation, int64_t c_begin, int64_t c_end, float* out) {
  if (kernel_width == 3) {
    return max_row_vectors<D, kStride, 3>(rows, row_count, 3, dilation, c_begin, c_end, out);
  }
  if (kernel_width == 2) {
    return max_row_vectors<D, kStride, 2>(rows, row_count, 2, dilation, c_begin, c_end, out);
  }
  return max_row_vectors<D, kStride, 0>(rows, row_count, kernel_width, dilation, c_begin, c_end,
                                        out);
}

// Columns [c_begin, c_end) in vectors of D; returns the first column not done.
template <class D>
int64_t max_row_any_stride(const float* const* rows, int64_t row_count, int64_t kernel_width,
                           int64_t dilation, int64_t stride, int64_t c_begin, int64_t c_end,
                           float* out) {
  if (stride == 1) {
    return max_row_any_width<D, 1>(rows, row_count, kernel_width, dilation, c_begin, c_end, out);
  }
  if (stride == 2) {
    return max_row_any_width<D, 2>(rows, row_count, kernel_width, dilation, c_begin, c_end, out);
  }
  return c_begin;
}

void max_pool_row(const float* const* rows, int64_t row_count, int64_t kernel_width,
                  int64_t dilation, int64_t stride, int64_t c_begin, int64_t c_end, float* out) {
  using Full = hn::ScalableTag<float>;
  const int64_t columns = c_end - c_begin;
  int64_t c = c_begin;
  if (columns >= static_cast<int64_t>(hn::Lanes(Full()))) {
    c = max_row_any_stride<Full>(rows, row_count, kernel_width, dilation, stride, c, c_end, out);
  }
  // A row narrower than a whole vector (SqueezeNet's last pool, 13 columns, on AVX-512) takes
  // 256- or 128-bit vectors: the scalar loop below is one chain of dependent maxima.
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES > 32
  if (c == c_begin && columns >= 8) {
    c = max_row_any_stride<hn::CappedTag<float, 8>>(rows, row_count, kernel_width, dilation, stride,
                                                    c, c_end, out);
  }
#endif
#if HWY_TARGET != HWY_SCALAR && HWY_MAX_BYTES > 16
  if (c == c_begin && columns >= 4) {
    c = max_row_any_stride<hn::CappedTag<float, 4>>(rows, row_count, kernel_width, dilation, stride,
                                                    c, c_end, out);
  }
#endif
  for (; c < c_end; ++c) {
    float best = rows[0][c * stride];
    for (int64_t i = 0; i < row_count; ++i) {
      for (int64_t j = i == 0 ? 1 : 0; j < kernel_width; ++j) {
        best = max_tap(best, rows[i][c * stride + j * dilation]);
      }
    }
    out[c] = best;
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(max_pool_row);

void max_pool_row_f32(const float* const* rows, int64_t row_count, int64_t kernel_width,
                      int64_t dilation, int64_t stride, int64_t c_begin, int64_t c_end,
                      float* out) {
  HWY_DYNAMIC_DISPATCH(max_pool_row)
  (rows, row_count, kernel_width, dilation, stride, c_begin, c_end, out);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
