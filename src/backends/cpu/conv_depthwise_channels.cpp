#include "backends/cpu/conv_depthwise_channels.h"

#include <algorithm>
#include <cstring>

#include "backends/cpu/conv_f32.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/conv_depthwise_channels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Outputs of one row computed together: their accumulators, the input vectors their windows
// span in one window row and one weight vector fit the register file (AVX-512, stride 2, 5x5:
// 8 + 19 + 1 of 32; AVX2: 4 + 11 + 1 of 16).
constexpr int64_t kBlock = HWY_TARGET <= HWY_AVX3 ? 8 : 4;

// The padded scratch of one channel group: position (r, c) holds the group's channels at
// data + (r * cols + c) * lanes; rows and columns cover every window, with zeros outside the
// image.
struct ChannelPlane {
  float* data;
  int64_t rows, cols;
};

// Outputs ow .. ow + kB - 1 of output row oh, for every channel of the group: `in` points at the
// scratch position of their first window's top-left tap, `wv` holds the group's weights as
// kK * kK vectors, `out` the staging position of output (oh, ow).
template <int64_t kK, int64_t kS, int64_t kB>
HWY_INLINE void output_block(const float* HWY_RESTRICT in, int64_t row_floats,
                             const float* HWY_RESTRICT wv, V bias, const DepthwiseClamp& clamp,
                             float* HWY_RESTRICT out) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kSpan = (kB - 1) * kS + kK;
  V acc[kB];
  for (int64_t b = 0; b < kB; ++b) acc[b] = bias;
  for (int64_t ky = 0; ky < kK; ++ky) {
    const float* row = in + ky * row_floats;
    V x[kSpan];
    for (int64_t i = 0; i < kSpan; ++i) x[i] = hn::Load(d, row + i * lanes);
    for (int64_t kx = 0; kx < kK; ++kx) {
      const V w = hn::Load(d, wv + (ky * kK + kx) * lanes);
      for (int64_t b = 0; b < kB; ++b) acc[b] = hn::MulAdd(w, x[b * kS + kx], acc[b]);
    }
  }
  if (clamp.active()) {
    const V lo = hn::Set(d, clamp.lo), hi = hn::Set(d, clamp.hi);
    for (int64_t b = 0; b < kB; ++b) acc[b] = hn::Min(hn::Max(acc[b], lo), hi);
  }
  for (int64_t b = 0; b < kB; ++b) hn::Store(acc[b], d, out + b * lanes);
}

template <int64_t kK, int64_t kS>
void convolve_group(const WindowGeometry& g, const ChannelPlane& s, const float* HWY_RESTRICT wv,
                    V bias, const DepthwiseClamp& clamp, float* HWY_RESTRICT staging) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t row_floats = s.cols * lanes;
  for (int64_t oh = 0; oh < oh_size; ++oh) {
    const float* in_row = s.data + oh * kS * row_floats;
    float* out_row = staging + oh * ow_size * lanes;
    int64_t ow = 0;
    for (; ow + kBlock <= ow_size; ow += kBlock) {
      output_block<kK, kS, kBlock>(in_row + ow * kS * lanes, row_floats, wv, bias, clamp,
                                   out_row + ow * lanes);
    }
    for (; ow < ow_size; ++ow) {
      output_block<kK, kS, 1>(in_row + ow * kS * lanes, row_floats, wv, bias, clamp,
                              out_row + ow * lanes);
    }
  }
}

using GroupKernel = void (*)(const WindowGeometry&, const ChannelPlane&, const float*, V,
                             const DepthwiseClamp&, float*);

GroupKernel pick_group_kernel(const WindowGeometry& g) {
  const int64_t k = g.kernel[0], s = g.stride[0];
  if (k == 3 && s == 1) return convolve_group<3, 1>;
  if (k == 3 && s == 2) return convolve_group<3, 2>;
  if (k == 5 && s == 1) return convolve_group<5, 1>;
  if (k == 5 && s == 2) return convolve_group<5, 2>;
  return nullptr;
}

void depthwise_channels(const WindowGeometry& g, const float* HWY_RESTRICT x,
                        const float* HWY_RESTRICT w, const float* HWY_RESTRICT bias,
                        const DepthwiseClamp& clamp, float* HWY_RESTRICT y, int64_t begin,
                        int64_t end) {
  const D d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const GroupKernel kernel = pick_group_kernel(g);
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const int64_t ph = g.pad[0], pw = g.pad[1];
  const int64_t in_plane = g.in_size(), out_plane = g.out_size(), taps = kh * kw;
  // Every window lies inside the scratch; image rows and columns no window reads are not copied.
  ChannelPlane s{nullptr, (g.out[0] - 1) * g.stride[0] + kh, (g.out[1] - 1) * g.stride[1] + kw};
  const int64_t rows_copied = std::min(ih_size, s.rows - ph);
  const int64_t cols_copied = std::min(iw_size, s.cols - pw);
  const size_t scratch_floats = static_cast<size_t>(s.rows * s.cols * lanes);
  const size_t staging_floats = static_cast<size_t>(out_plane * lanes);
  const size_t weight_floats = static_cast<size_t>(taps * lanes);
  float* scratch =
      conv_scratch(ConvScratch::kPlane, scratch_floats + staging_floats + weight_floats);
  s.data = scratch;
  float* staging = scratch + scratch_floats;
  float* wv = staging + staging_floats;
  // Zeroed once: each group rewrites only the image's positions, so the padding stays zero,
  // and the lanes a short last group leaves alone hold finite values (never stored).
  std::fill(scratch, scratch + scratch_floats + staging_floats + weight_floats, 0.0f);

  for (int64_t c0 = begin; c0 < end; c0 += lanes) {
    const int64_t count = std::min(lanes, end - c0);
    HWY_ALIGN float bias_lanes[HWY_MAX_BYTES / sizeof(float)] = {};
    for (int64_t i = 0; i < count; ++i) {
      const float* wc = w + (c0 + i) * taps;
      for (int64_t t = 0; t < taps; ++t) wv[t * lanes + i] = wc[t];
      bias_lanes[i] = bias ? bias[c0 + i] : 0.0f;
      const float* xc = x + (c0 + i) * in_plane;
      for (int64_t r = 0; r < rows_copied; ++r) {
        float* dst = s.data + ((r + ph) * s.cols + pw) * lanes + i;
        const float* src = xc + r * iw_size;
        for (int64_t col = 0; col < cols_copied; ++col) dst[col * lanes] = src[col];
      }
    }
    kernel(g, s, wv, hn::Load(d, bias_lanes), clamp, staging);
    for (int64_t i = 0; i < count; ++i) {
      float* yc = y + (c0 + i) * out_plane;
      for (int64_t pos = 0; pos < out_plane; ++pos) yc[pos] = staging[pos * lanes + i];
    }
  }
}

bool channels_kernel_exists(const WindowGeometry& g) { return pick_group_kernel(g) != nullptr; }

int64_t channel_group() { return static_cast<int64_t>(hn::Lanes(D())); }

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(depthwise_channels);
HWY_EXPORT(channels_kernel_exists);
HWY_EXPORT(channel_group);

bool depthwise_channels_applies(const WindowGeometry& g) {
  if (g.rank() != 2 || g.kernel[0] != g.kernel[1] || g.stride[0] != g.stride[1]) return false;
  if (g.dilation[0] != 1 || g.dilation[1] != 1 || g.pad[0] < 0 || g.pad[1] < 0) return false;
  // Where it pays, measured on Zen 4 with AVX-512 and with AVX2 (MobileNetV2's and
  // EfficientNet-B0's layers): output rows of at most 7 columns (half an AVX-512 vector; 7 x 7
  // outputs, 3x3 1.05-1.3 times faster, 5x5 1.7-2.4), and 5x5 kernels over 14 x 14 maps
  // (1.2-1.4). A 3x3 kernel over 14 x 14 fills the row kernel's vectors well enough that the
  // copies in and out cost more than the lanes they save; from 28 x 28 on, the channel-major
  // copy outgrows the L1 cache.
  constexpr int64_t kMaxInputSide = 14, kNarrowRow = 7;
  if (g.in[0] > kMaxInputSide || g.in[1] > kMaxInputSide) return false;
  if (g.out[1] > kNarrowRow && g.kernel[0] != 5) return false;
  return HWY_DYNAMIC_DISPATCH(channels_kernel_exists)(g);
}

void depthwise_conv2d_channels(const WindowGeometry& g, const float* x, const float* w,
                               const float* bias, const DepthwiseClamp& clamp, float* y,
                               int64_t begin, int64_t end) {
  HWY_DYNAMIC_DISPATCH(depthwise_channels)(g, x, w, bias, clamp, y, begin, end);
}

int64_t depthwise_channel_group() { return HWY_DYNAMIC_DISPATCH(channel_group)(); }

}  // namespace kiln::cpu
#endif  // HWY_ONCE
