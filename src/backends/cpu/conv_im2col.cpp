#include "backends/cpu/conv_im2col.h"

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/conv_im2col.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

// out[t] = in[t * stride] for t < n. The runs are short (one output row), so an inline vector
// loop beats a call to memcpy; stride 2 (downsampling convs) gathers with a shuffle.
inline void copy_strided(const float* HWY_RESTRICT in, int64_t stride, int64_t n,
                         float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t t = 0;
  if (stride == 1) {
    for (; t + lanes <= n; t += lanes) hn::StoreU(hn::LoadU(d, in + t), d, out + t);
  }
#if HWY_TARGET != HWY_SCALAR
  else if (stride == 2) {
    // Reads in[2t, 2t + 2 lanes): inside the row while t + lanes < n.
    for (; t + lanes < n; t += lanes) {
      hn::StoreU(hn::ConcatEven(d, hn::LoadU(d, in + 2 * t + lanes), hn::LoadU(d, in + 2 * t)), d,
                 out + t);
    }
  }
#endif
  for (; t < n; ++t) out[t] = in[t * stride];
}

// The window positions t in [0, count) whose image coordinate base + t * stride lies in
// [0, size), as the half-open range [lo, hi) (empty when lo >= hi).
inline void valid_range(int64_t base, int64_t stride, int64_t count, int64_t size, int64_t& lo,
                        int64_t& hi) {
  lo = base >= 0 ? 0 : (-base + stride - 1) / stride;
  hi = base >= size ? 0 : (size - 1 - base) / stride + 1;
  lo = std::min(lo, count);
  hi = std::clamp(hi, lo, count);
}

// Walks the window positions [col_begin, col_end) of one kernel tap in runs along the last
// axis. For each run, body(dst_offset, image_row, base, count) gets the image row the run
// reads (nullptr when an outer axis is in the padding), the image coordinate of the run's
// first position along the last axis, and the run length.
template <class Body>
void for_each_run(const WindowGeometry& g, const int64_t* tap, int64_t col_begin, int64_t col_end,
                  Body&& body) {
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  int64_t pos[16];
  int64_t rest = col_begin;
  for (size_t d = rank; d-- > 0;) {
    pos[d] = rest % g.out[d];
    rest /= g.out[d];
  }
  const int64_t tap_last = tap[last] * g.dilation[last] - g.pad[last];
  int64_t j = col_begin;
  while (j < col_end) {
    const int64_t count = std::min(g.out[last] - pos[last], col_end - j);
    int64_t row = 0;
    bool inside = true;
    for (size_t d = 0; d < last; ++d) {
      const int64_t i = pos[d] * g.stride[d] + tap[d] * g.dilation[d] - g.pad[d];
      inside = inside && i >= 0 && i < g.in[d];
      row = row * g.in[d] + i;
    }
    body(j - col_begin, inside ? row * g.in[last] : int64_t{-1},
         pos[last] * g.stride[last] + tap_last, count);
    j += count;
    pos[last] = 0;
    for (size_t d = last; d-- > 0;) {
      if (++pos[d] < g.out[d]) break;
      pos[d] = 0;
    }
  }
}

// Advances a kernel tap odometer.
inline void next_tap(const WindowGeometry& g, int64_t* tap) {
  for (size_t d = g.rank(); d-- > 0;) {
    if (++tap[d] < g.kernel[d]) return;
    tap[d] = 0;
  }
}

}  // namespace

void im2col_impl(const WindowGeometry& g, int64_t channels, const float* image, int64_t col_begin,
                 int64_t col_end, float* cols) {
  const int64_t width = col_end - col_begin;
  const int64_t in_size = g.in_size();
  const int64_t taps = g.kernel_size();
  const size_t last = g.rank() - 1;
  const int64_t stride = g.stride[last];
  const int64_t in_last = g.in[last];
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = image + c * in_size;
    int64_t tap[16] = {};
    for (int64_t k = 0; k < taps; ++k, next_tap(g, tap)) {
      float* dst = cols + (c * taps + k) * width;
      for_each_run(g, tap, col_begin, col_end,
                   [&](int64_t offset, int64_t row, int64_t base, int64_t count) {
                     float* out = dst + offset;
                     if (row < 0) {
                       std::fill(out, out + count, 0.0f);
                       return;
                     }
                     int64_t lo, hi;
                     valid_range(base, stride, count, in_last, lo, hi);
                     std::fill(out, out + lo, 0.0f);
                     // Only positions inside the image are addressed: base may be negative.
                     copy_strided(src + row + base + lo * stride, stride, hi - lo, out + lo);
                     std::fill(out + hi, out + count, 0.0f);
                   });
    }
  }
}

void col2im_add_impl(const WindowGeometry& g, int64_t channels, const float* cols, float* image) {
  const int64_t width = g.out_size();
  const int64_t in_size = g.in_size();
  const int64_t taps = g.kernel_size();
  const size_t last = g.rank() - 1;
  const int64_t stride = g.stride[last];
  const int64_t in_last = g.in[last];
  for (int64_t c = 0; c < channels; ++c) {
    float* dst = image + c * in_size;
    int64_t tap[16] = {};
    for (int64_t k = 0; k < taps; ++k, next_tap(g, tap)) {
      const float* src = cols + (c * taps + k) * width;
      for_each_run(g, tap, 0, width, [&](int64_t offset, int64_t row, int64_t base, int64_t count) {
        if (row < 0) return;
        int64_t lo, hi;
        valid_range(base, stride, count, in_last, lo, hi);
        const float* in = src + offset;
        float* out = dst + row + base + lo * stride;
        for (int64_t t = lo; t < hi; ++t) out[(t - lo) * stride] += in[t];
      });
    }
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(im2col_impl);
HWY_EXPORT(col2im_add_impl);

void im2col(const WindowGeometry& g, int64_t channels, const float* image, int64_t col_begin,
            int64_t col_end, float* cols) {
  HWY_DYNAMIC_DISPATCH(im2col_impl)(g, channels, image, col_begin, col_end, cols);
}

void col2im_add(const WindowGeometry& g, int64_t channels, const float* cols, float* image) {
  HWY_DYNAMIC_DISPATCH(col2im_add_impl)(g, channels, cols, image);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
