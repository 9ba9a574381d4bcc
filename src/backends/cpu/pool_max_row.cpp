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

// Stride 1 and 2 take whole vectors (stride 2: the even lanes of two loads); a vector is only
// started where all its lanes' windows are inside the row, so no load reads past it. The rest,
// and other strides, take the scalar loop.
template <int64_t kStride>
int64_t max_row_vectors(const float* const* rows, int64_t row_count, int64_t kernel_width,
                        int64_t dilation, int64_t c, int64_t c_end, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (; c + lanes <= c_end; c += lanes) {
    auto tap = [&](const float* p) HWY_ATTR {
#if HWY_TARGET == HWY_SCALAR
      return hn::LoadU(d, p);
#else
      if constexpr (kStride == 1) {
        return hn::LoadU(d, p);
      } else {
        // The last lane's window ends at (c + lanes - 1) * 2 + tap, inside the row; the second
        // load's last lane is one further, the (unused) odd column after it, which exists
        // unless the window ends the row, hence the check by the caller.
        return hn::ConcatEven(d, hn::LoadU(d, p + lanes), hn::LoadU(d, p));
      }
#endif
    };
    auto best = tap(rows[0] + c * kStride);
    for (int64_t i = 0; i < row_count; ++i) {
      for (int64_t j = i == 0 ? 1 : 0; j < kernel_width; ++j) {
        const auto v = tap(rows[i] + c * kStride + j * dilation);
        best = hn::IfThenElse(hn::Gt(v, best), v, best);
      }
    }
    hn::StoreU(best, d, out + c);
  }
  return c;
}

void max_pool_row(const float* const* rows, int64_t row_count, int64_t kernel_width,
                  int64_t dilation, int64_t stride, int64_t c_begin, int64_t c_end, float* out) {
  int64_t c = c_begin;
  if (stride == 1) {
    c = max_row_vectors<1>(rows, row_count, kernel_width, dilation, c, c_end, out);
  } else if (stride == 2) {
    // The second load of the last vector reads one column past its last window: keep that
    // vector out of the vector loop unless the row has the column.
    c = max_row_vectors<2>(rows, row_count, kernel_width, dilation, c, c_end - 1, out);
  }
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
