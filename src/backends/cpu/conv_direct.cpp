#include "backends/cpu/conv_direct.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/cpu/conv_f32.h"
#include "core/thread_pool.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/conv_direct.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

// Shared by every target's pass over this file: defined once.
#ifndef KILN_CONV_DIRECT_LIMITS
#define KILN_CONV_DIRECT_LIMITS
namespace kiln::cpu {
namespace {

constexpr int64_t kMaxInputChannels = 4;
constexpr int64_t kMaxKernelWidth = 16;
// Output rows per job: a band's input rows are copied once for all its output rows.
constexpr int64_t kBandRows = 4;

}  // namespace
}  // namespace kiln::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Output channels per register tile: with kVecs vectors of one row each, the tile's
// accumulators plus kVecs input vectors and one broadcast weight fit the register file
// (AVX-512 and its 32 registers: 8 x 3 + 4; AVX2's 16: 4 x 3 + 4).
constexpr int kOcBlock = HWY_TARGET <= HWY_AVX3 ? 8 : 4;
constexpr int kVecs = 3;

// A band of input rows, zero-padded and split by column phase: phase q of a row holds the
// padded columns q, q + s, q + 2s, ... (s the horizontal stride), so that one tap of the
// windows at output columns ow .. ow + lanes - 1 is one contiguous vector: padded column
// ow * s + kx is element ow + kx / s of phase kx % s.
struct Band {
  const float* data;
  int64_t rows;        // input rows per channel
  int64_t row_floats;  // s phases of phase_cols floats
};

// What every tile of one conv reads.
struct DirectConv {
  Band band;
  const float* w;            // W [M, C, kh, kw]
  const float* bias;         // may be null
  int64_t channels, kh, kw;  // C and the kernel
  int64_t taps;              // C * kh * kw: one output channel's weights
  int64_t out_width;
  int64_t out_plane;                    // floats per output channel
  int64_t tap_offset[kMaxKernelWidth];  // kx -> (kx % s) * phase_cols + kx / s
  bool clamp;
  float lo, hi;
};

// Output channels m .. m + kOc - 1 at columns ow .. ow + kVec * lanes - 1 of one output row
// whose windows start at band row `band_row`; the last vector stores `last_valid` lanes.
template <int kOc, int kVec>
HWY_INLINE void conv_tile(const DirectConv& c, int64_t band_row, int64_t m, int64_t ow,
                          size_t last_valid, float* HWY_RESTRICT out_row) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  V acc[kOc][kVec];
  for (int o = 0; o < kOc; ++o) {
    const V b = hn::Set(d, c.bias ? c.bias[m + o] : 0.0f);
    for (int v = 0; v < kVec; ++v) acc[o][v] = b;
  }
  const float* HWY_RESTRICT w = c.w + m * c.taps;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    for (int64_t ky = 0; ky < c.kh; ++ky) {
      const float* row = c.band.data + (ch * c.band.rows + band_row + ky) * c.band.row_floats + ow;
      const float* wk = w + (ch * c.kh + ky) * c.kw;
      for (int64_t kx = 0; kx < c.kw; ++kx) {
        const float* in = row + c.tap_offset[kx];
        V x[kVec];
        for (int v = 0; v < kVec; ++v) x[v] = hn::LoadU(d, in + v * lanes);
        for (int o = 0; o < kOc; ++o) {
          const V wv = hn::Set(d, wk[o * c.taps + kx]);
          for (int v = 0; v < kVec; ++v) acc[o][v] = hn::MulAdd(wv, x[v], acc[o][v]);
        }
      }
    }
  }
  if (c.clamp) {
    const V lo = hn::Set(d, c.lo), hi = hn::Set(d, c.hi);
    for (int o = 0; o < kOc; ++o) {
      for (int v = 0; v < kVec; ++v) acc[o][v] = hn::Min(hn::Max(acc[o][v], lo), hi);
    }
  }
  for (int o = 0; o < kOc; ++o) {
    float* out = out_row + (m + o) * c.out_plane + ow;
    // The same columns of the next row, for writing: fetched while this tile's taps run,
    // since the output is usually far larger than the caches.
    for (int v = 0; v < kVec; ++v) __builtin_prefetch(out + c.out_width + v * lanes, 1);
    for (int v = 0; v + 1 < kVec; ++v) hn::StoreU(acc[o][v], d, out + v * lanes);
    float* last = out + (kVec - 1) * lanes;
    if (last_valid == lanes) {
      hn::StoreU(acc[o][kVec - 1], d, last);
    } else {
      hn::BlendedStore(acc[o][kVec - 1], hn::FirstN(d, last_valid), d, last);
    }
  }
}

// Output channels m .. m + kOc - 1 of one output row.
template <int kOc>
void conv_row(const DirectConv& c, int64_t band_row, int64_t m, float* HWY_RESTRICT out_row) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  int64_t ow = 0;
  for (; ow + kVecs * lanes <= c.out_width; ow += kVecs * lanes) {
    conv_tile<kOc, kVecs>(c, band_row, m, ow, static_cast<size_t>(lanes), out_row);
  }
  for (; ow < c.out_width; ow += lanes) {
    const int64_t valid = std::min(lanes, c.out_width - ow);
    conv_tile<kOc, 1>(c, band_row, m, ow, static_cast<size_t>(valid), out_row);
  }
}

// Phase q of one padded input row (src null: a row of the padding): element j is column
// j * s + q - pad of src, or 0 outside it.
void fill_phase(const float* HWY_RESTRICT src, int64_t width, int64_t stride, int64_t q,
                int64_t pad, float* HWY_RESTRICT dst, int64_t phase_cols) {
  // Elements whose column lies inside the row: [j_lo, j_hi).
  const int64_t first = pad - q;  // j * s >= pad - q
  const int64_t j_lo = std::min(phase_cols, first <= 0 ? 0 : (first + stride - 1) / stride);
  const int64_t last = width - 1 + pad - q;  // j * s <= width - 1 + pad - q
  const int64_t j_hi =
      src == nullptr || last < 0 ? j_lo : std::max(j_lo, std::min(phase_cols, last / stride + 1));
  std::fill(dst, dst + j_lo, 0.0f);
  std::fill(dst + j_hi, dst + phase_cols, 0.0f);
  const int64_t n = j_hi - j_lo;
  if (n <= 0) return;
  const float* s = src + j_lo * stride + q - pad;
  float* out = dst + j_lo;
  if (stride == 1) {
    std::memcpy(out, s, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // one lane: nothing to deinterleave
  if (stride == 2) {
    const D d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    // Both loads stay inside the row: s[2i + 2 lanes - 1] is at most its last column.
    const int64_t readable = width - (j_lo * stride + q - pad);
    for (; i + lanes <= n && 2 * (i + lanes) <= readable; i += lanes) {
      hn::StoreU(hn::ConcatEven(d, hn::LoadU(d, s + 2 * i + lanes), hn::LoadU(d, s + 2 * i)), d,
                 out + i);
    }
  }
#endif
  for (; i < n; ++i) out[i] = s[i * stride];
}

void conv_direct_any(const ConvProblem& p, const float* HWY_RESTRICT x, const float* HWY_RESTRICT w,
                     const float* HWY_RESTRICT bias, float* HWY_RESTRICT y, const ConvEpilogue& e) {
  const WindowGeometry& g = p.geometry;
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1];
  const int64_t sh = g.stride[0], sw = g.stride[1];
  const int64_t ph = g.pad[0], pw = g.pad[1];
  const int64_t channels = p.in_channels, out_channels = p.out_channels;
  const int64_t in_plane = g.in_size(), out_plane = g.out_size();
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(D()));
  // Every vector a row reads lies inside its phase: the last starts below ow_size rounded up
  // to whole vectors, and reaches (kw - 1) / s further.
  const int64_t phase_cols = (ow_size + lanes - 1) / lanes * lanes + (kw - 1) / sw + 1;
  const int64_t row_floats = sw * phase_cols;
  const int64_t bands = (oh_size + kBandRows - 1) / kBandRows;
  const int64_t max_band_rows = (kBandRows - 1) * sh + kh;

  // Relu and Clip are applied in the tile, unless a residual must be added before them.
  const bool clamp_in_tile = e.residual == nullptr && e.activation_in_gemm();
  DirectConv c{};
  c.w = w;
  c.bias = bias;
  c.channels = channels;
  c.kh = kh;
  c.kw = kw;
  c.taps = channels * kh * kw;
  c.out_width = ow_size;
  c.out_plane = out_plane;
  for (int64_t kx = 0; kx < kw; ++kx) c.tap_offset[kx] = (kx % sw) * phase_cols + kx / sw;
  c.clamp = clamp_in_tile;
  if (clamp_in_tile) {
    const bool relu = e.activation == FusedActivation::kRelu;
    c.lo = relu ? 0.0f : e.clip_min;
    c.hi = relu ? std::numeric_limits<float>::infinity() : e.clip_max;
  }

  parallel_for(p.batch * bands, 1, [&](int64_t begin, int64_t end) {
    float* band = conv_scratch(ConvScratch::kPlane,
                               static_cast<size_t>(channels * max_band_rows * row_floats));
    for (int64_t job = begin; job < end; ++job) {
      const int64_t n = job / bands;
      const int64_t oh0 = job % bands * kBandRows;
      const int64_t oh1 = std::min(oh_size, oh0 + kBandRows);
      const int64_t band_rows = (oh1 - oh0 - 1) * sh + kh;
      const int64_t ih0 = oh0 * sh - ph;
      const float* xn = x + n * channels * in_plane;
      for (int64_t ch = 0; ch < channels; ++ch) {
        for (int64_t r = 0; r < band_rows; ++r) {
          const int64_t ih = ih0 + r;
          const float* src = ih >= 0 && ih < ih_size ? xn + ch * in_plane + ih * iw_size : nullptr;
          float* dst = band + (ch * band_rows + r) * row_floats;
          for (int64_t q = 0; q < sw; ++q) {
            fill_phase(src, iw_size, sw, q, pw, dst + q * phase_cols, phase_cols);
          }
        }
      }
      DirectConv tile = c;
      tile.band = Band{band, band_rows, row_floats};
      float* yn = y + n * out_channels * out_plane;
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        const int64_t band_row = (oh - oh0) * sh;
        float* out_row = yn + oh * ow_size;
        int64_t m = 0;
        for (; m + kOcBlock <= out_channels; m += kOcBlock) {
          conv_row<kOcBlock>(tile, band_row, m, out_row);
        }
        for (; m < out_channels; ++m) conv_row<1>(tile, band_row, m, out_row);
      }
      // The band's rows are still in cache: the residual and the other activations cost no
      // extra memory pass.
      float* y_band = yn + oh0 * ow_size;
      const int64_t band_floats = (oh1 - oh0) * ow_size;
      const float* z_band =
          e.residual ? e.residual + n * out_channels * out_plane + oh0 * ow_size : nullptr;
      add_residual_and_activate(e, y_band, z_band, out_channels, band_floats, out_plane,
                                clamp_in_tile);
    }
  });
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(conv_direct_any);

bool direct_conv_applies(const ConvProblem& p) {
  const WindowGeometry& g = p.geometry;
  if (p.group != 1 || g.rank() != 2 || p.in_channels > kMaxInputChannels) return false;
  for (size_t axis = 0; axis < 2; ++axis) {
    if (g.dilation[axis] != 1 || g.stride[axis] < 1 || g.stride[axis] > 2) return false;
    if (g.pad[axis] < 0 || g.kernel[axis] > kMaxKernelWidth) return false;
  }
  // Narrow rows would leave most lanes of a vector idle.
  return g.out[1] >= 16 && p.out_channels >= 4;
}

void conv_direct_f32(const ConvProblem& p, const float* x, const float* w, const float* bias,
                     float* y, const ConvEpilogue& e) {
  HWY_DYNAMIC_DISPATCH(conv_direct_any)(p, x, w, bias, y, e);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
