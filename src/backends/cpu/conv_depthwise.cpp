#include "backends/cpu/conv_depthwise.h"

#include <algorithm>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/conv_depthwise.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Taps along one axis are at most this many for the vectorised interior; larger kernels take
// the scalar path, which is rare enough for depthwise convs not to matter.
constexpr int64_t kMaxTaps = 64;

void depthwise_plane(const ConvGeometry& g, const float* HWY_RESTRICT x,
                     const float* HWY_RESTRICT w, float bias, float* HWY_RESTRICT y) {
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t kh_size = g.kernel[0], kw_size = g.kernel[1];
  const int64_t sh = g.stride[0], sw = g.stride[1];
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  const int64_t ph = g.pad[0], pw = g.pad[1];

  // Output columns whose whole window row lies inside the image: no bounds checks there.
  int64_t ow_lo = 0, ow_hi = ow_size;
  for (int64_t kw = 0; kw < kw_size; ++kw) {
    const int64_t base = kw * dw - pw;
    const int64_t lo = base >= 0 ? 0 : (-base + sw - 1) / sw;
    const int64_t hi = base >= iw_size ? 0 : (iw_size - 1 - base) / sw + 1;
    ow_lo = std::max(ow_lo, lo);
    ow_hi = std::min(ow_hi, hi);
  }
  ow_hi = std::max(ow_hi, ow_lo);
  ow_lo = std::min(ow_lo, ow_size);
  ow_hi = std::min(ow_hi, ow_size);

  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float* rows[kMaxTaps];
  const float* taps[kMaxTaps];

  for (int64_t oh = 0; oh < oh_size; ++oh) {
    float* out = y + oh * ow_size;
    int64_t nrows = 0;
    for (int64_t kh = 0; kh < kh_size; ++kh) {
      const int64_t ih = oh * sh + kh * dh - ph;
      if (ih < 0 || ih >= ih_size) continue;
      if (nrows < kMaxTaps) {
        rows[nrows] = x + ih * iw_size;
        taps[nrows] = w + kh * kw_size;
      }
      ++nrows;
    }
    // Edge columns (and kernels too large for the tables): bounds-checked scalar loop.
    auto scalar = [&](int64_t ow) {
      float acc = bias;
      for (int64_t kh = 0; kh < kh_size; ++kh) {
        const int64_t ih = oh * sh + kh * dh - ph;
        if (ih < 0 || ih >= ih_size) continue;
        const float* row = x + ih * iw_size;
        for (int64_t kw = 0; kw < kw_size; ++kw) {
          const int64_t iw = ow * sw + kw * dw - pw;
          if (iw >= 0 && iw < iw_size) acc += w[kh * kw_size + kw] * row[iw];
        }
      }
      out[ow] = acc;
    };
    if (nrows > kMaxTaps) {
      for (int64_t ow = 0; ow < ow_size; ++ow) scalar(ow);
      continue;
    }
    for (int64_t ow = 0; ow < ow_lo; ++ow) scalar(ow);
    int64_t ow = ow_lo;
    if (sw == 1) {
      for (; ow + lanes <= ow_hi; ow += lanes) {
        auto acc = hn::Set(d, bias);
        for (int64_t r = 0; r < nrows; ++r) {
          const float* in = rows[r] + ow - pw;
          const float* tw = taps[r];
          for (int64_t kw = 0; kw < kw_size; ++kw) {
            acc = hn::MulAdd(hn::Set(d, tw[kw]), hn::LoadU(d, in + kw * dw), acc);
          }
        }
        hn::StoreU(acc, d, out + ow);
      }
    }
    // Strided interior (and the stride-1 remainder): no bounds checks, so the compiler is free
    // to vectorise with the target's gathers or permutes.
    for (; ow < ow_hi; ++ow) {
      float acc = bias;
      for (int64_t r = 0; r < nrows; ++r) {
        const float* in = rows[r] + ow * sw - pw;
        const float* tw = taps[r];
        for (int64_t kw = 0; kw < kw_size; ++kw) acc += tw[kw] * in[kw * dw];
      }
      out[ow] = acc;
    }
    for (ow = ow_hi; ow < ow_size; ++ow) scalar(ow);
  }
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(depthwise_plane);

void depthwise_conv2d_plane(const ConvGeometry& g, const float* x, const float* w, float bias,
                            float* y) {
  HWY_DYNAMIC_DISPATCH(depthwise_plane)(g, x, w, bias, y);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
