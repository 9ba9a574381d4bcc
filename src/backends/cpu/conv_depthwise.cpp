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

void depthwise_plane(const WindowGeometry& g, const float* HWY_RESTRICT x,
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

// The padded copy of a plane: rows and columns wide enough that every window lies inside. Rows
// are packed tightly; the slack after the last row lets the last output vector of any row read
// a full vector (and, for stride 2, two) past its last window: those lanes are never stored.
struct PaddedPlane {
  int64_t rows, cols;
};
inline PaddedPlane padded_size(const WindowGeometry& g) {
  const int64_t rows = std::max(
      g.in[0] + g.pad[0], (g.out[0] - 1) * g.stride[0] + (g.kernel[0] - 1) * g.dilation[0] + 1);
  const int64_t cols = std::max(
      g.in[1] + g.pad[1], (g.out[1] - 1) * g.stride[1] + (g.kernel[1] - 1) * g.dilation[1] + 1);
  return {rows, cols};
}
constexpr int64_t kPlaneSlack = 2 * static_cast<int64_t>(HWY_MAX_BYTES / sizeof(float)) + 16;

// Square kernel of kK x kK taps with stride kS over a padded plane: each output vector keeps
// its accumulator in a register over all taps; the weights stay in registers for the plane.
// The last vector of a row is computed whole and stored in part, so narrow planes (7 or 14
// wide, common in mobile networks) stay vectorised.
template <int64_t kK, int64_t kS>
void depthwise_padded(const WindowGeometry& g, const float* HWY_RESTRICT xp, int64_t xp_cols,
                      const float* HWY_RESTRICT w, float bias, const DepthwiseClamp& clamp,
                      float* HWY_RESTRICT y) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  V wv[kK * kK];
  for (int64_t i = 0; i < kK * kK; ++i) wv[i] = hn::Set(d, w[i]);
  const V vbias = hn::Set(d, bias);
  const V lo = hn::Set(d, clamp.lo), hi = hn::Set(d, clamp.hi);
  const bool clamped = clamp.active();
  auto window = [&](const float* const* rows, int64_t ow) HWY_ATTR {
    V acc = vbias;
    for (int64_t kh = 0; kh < kK; ++kh) {
      const float* in = rows[kh] + ow * kS;
      for (int64_t kw = 0; kw < kK; ++kw) {
        V v;
#if HWY_TARGET == HWY_SCALAR
        v = hn::LoadU(d, in + kw * dw);  // one lane: in already points at ow * kS
#else
        if constexpr (kS == 1) {
          v = hn::LoadU(d, in + kw * dw);
        } else {
          // Stride 2: the even lanes of two consecutive vectors.
          v = hn::ConcatEven(d, hn::LoadU(d, in + kw * dw + lanes), hn::LoadU(d, in + kw * dw));
        }
#endif
        acc = hn::MulAdd(wv[kh * kK + kw], v, acc);
      }
    }
    return clamped ? hn::Min(hn::Max(acc, lo), hi) : acc;
  };
  for (int64_t oh = 0; oh < oh_size; ++oh) {
    const float* rows[kK];
    for (int64_t kh = 0; kh < kK; ++kh) rows[kh] = xp + (oh * g.stride[0] + kh * dh) * xp_cols;
    float* out = y + oh * ow_size;
    int64_t ow = 0;
    for (; ow + lanes <= ow_size; ow += lanes) hn::StoreU(window(rows, ow), d, out + ow);
    if (ow < ow_size) {
      // A masked store (a scalar loop on targets without one): nothing past the row is written,
      // which another thread may be writing.
      hn::BlendedStore(window(rows, ow), hn::FirstN(d, static_cast<size_t>(ow_size - ow)), d,
                       out + ow);
    }
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// The lanes of a load that starts at column `first` of a row `width` columns wide that lie inside
// the row; `iota` holds 0, 1, 2, ... in the signed lanes.
template <class D, class VI>
HWY_INLINE hn::Mask<D> lanes_inside_row(D d, VI iota, VI width, int64_t first) {
  const hn::RebindToSigned<D> di;
  const VI col = hn::Add(iota, hn::Set(di, static_cast<int32_t>(first)));
  return hn::RebindMask(d, hn::And(hn::Lt(col, width), hn::Not(hn::Lt(col, hn::Zero(di)))));
}

// Without the padded copy: AVX2 and AVX-512 load with a mask, and a masked-off lane neither
// reads memory nor faults, so the window's lanes outside the row (the zero padding) are simply
// not loaded. Rows of the window above or below the image are skipped. Vectors whose every
// window lies inside the row take plain loads.
template <int64_t kK, int64_t kS>
void depthwise_direct(const WindowGeometry& g, const float* HWY_RESTRICT x,
                      const float* HWY_RESTRICT w, float bias, const DepthwiseClamp& clamp,
                      float* HWY_RESTRICT y) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  using VI = hn::Vec<decltype(di)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t dh = g.dilation[0], dw = g.dilation[1];
  const int64_t ph = g.pad[0], pw = g.pad[1];
  V wv[kK * kK];
  for (int64_t i = 0; i < kK * kK; ++i) wv[i] = hn::Set(d, w[i]);
  const V vbias = hn::Set(d, bias);
  const V lo = hn::Set(d, clamp.lo), hi = hn::Set(d, clamp.hi);
  const bool clamped = clamp.active();
  const VI iota = hn::Iota(di, 0);
  const VI width = hn::Set(di, static_cast<int32_t>(iw_size));
  auto inside = [&](int64_t first) HWY_ATTR { return lanes_inside_row(d, iota, width, first); };
  // Span of input columns one output vector reads: its first and one past its last.
  const int64_t span = (lanes * kS - (kS - 1)) + (kK - 1) * dw;
  // Column strips of one vector, each down the whole plane: an edge strip's masks depend on
  // the column only, so they are made once per strip.
  for (int64_t ow = 0; ow < ow_size; ow += lanes) {
    const int64_t first = ow * kS - pw;
    const bool interior = first >= 0 && first + span + (kS - 1) <= iw_size;
    hn::Mask<decltype(d)> m0[kK], m1[kK];
    if (!interior) {
      for (int64_t kw = 0; kw < kK; ++kw) {
        m0[kw] = inside(first + kw * dw);
        if constexpr (kS == 2) m1[kw] = inside(first + kw * dw + lanes);
      }
    }
    const size_t valid = static_cast<size_t>(std::min(lanes, ow_size - ow));
    for (int64_t oh = 0; oh < oh_size; ++oh) {
      const int64_t ih0 = oh * g.stride[0] - ph;
      int64_t kh_lo = 0, kh_hi = kK;
      while (kh_lo < kK && ih0 + kh_lo * dh < 0) ++kh_lo;
      while (kh_hi > kh_lo && ih0 + (kh_hi - 1) * dh >= ih_size) --kh_hi;
      V acc = vbias;
      if (interior) {
        for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
          const float* in = x + (ih0 + kh * dh) * iw_size + first;
          for (int64_t kw = 0; kw < kK; ++kw) {
            V v;
            if constexpr (kS == 1) {
              v = hn::LoadU(d, in + kw * dw);
            } else {
              v = hn::ConcatEven(d, hn::LoadU(d, in + kw * dw + lanes), hn::LoadU(d, in + kw * dw));
            }
            acc = hn::MulAdd(wv[kh * kK + kw], v, acc);
          }
        }
      } else {
        for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
          const float* in = x + (ih0 + kh * dh) * iw_size + first;
          for (int64_t kw = 0; kw < kK; ++kw) {
            V v;
            if constexpr (kS == 1) {
              v = hn::MaskedLoad(m0[kw], d, in + kw * dw);
            } else {
              v = hn::ConcatEven(d, hn::MaskedLoad(m1[kw], d, in + kw * dw + lanes),
                                 hn::MaskedLoad(m0[kw], d, in + kw * dw));
            }
            acc = hn::MulAdd(wv[kh * kK + kw], v, acc);
          }
        }
      }
      if (clamped) acc = hn::Min(hn::Max(acc, lo), hi);
      float* out = y + oh * ow_size + ow;
      if (valid == static_cast<size_t>(lanes)) {
        hn::StoreU(acc, d, out);
      } else {
        hn::BlendedStore(acc, hn::FirstN(d, valid), d, out);
      }
    }
  }
}

// The common case of depthwise_direct (no dilation, kernel up to 5, padding up to the kernel's
// half-width and below a vector) in the order that suits the caches: output rows top to bottom,
// kRows at a time. Each input row the kRows output rows share is loaded once, as the kK shifted
// vectors of its taps, and fed to every output row that reads it; window rows above or below
// the image read a zero row instead, so no loop has bounds. Only the vectors at the ends of a
// row need masks.
template <int64_t kK, int64_t kS, int64_t kRows>
void depthwise_rows(const WindowGeometry& g, const float* HWY_RESTRICT x,
                    const float* HWY_RESTRICT w, float bias, const DepthwiseClamp& clamp,
                    float* HWY_RESTRICT y, float* HWY_RESTRICT scratch) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  using M = hn::Mask<decltype(d)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  const int64_t oh_size = g.out[0], ow_size = g.out[1];
  const int64_t ph = g.pad[0], pw = g.pad[1];
  // Loads read only the row's own columns [0, iw): a plain load lies inside, and a masked one
  // reads none of its lanes outside. So only those are zeroed (a plane may have 49 outputs).
  float* zero_row = scratch;
  std::fill(zero_row, zero_row + iw_size, 0.0f);
  V wv[kK * kK];
  for (int64_t i = 0; i < kK * kK; ++i) wv[i] = hn::Set(d, w[i]);
  const V vbias = hn::Set(d, bias);
  const V lo = hn::Set(d, clamp.lo), hi = hn::Set(d, clamp.hi);
  const bool clamped = clamp.active();
  const auto iota = hn::Iota(di, 0);
  const auto width = hn::Set(di, static_cast<int32_t>(iw_size));
  auto inside = [&](int64_t first) HWY_ATTR { return lanes_inside_row(d, iota, width, first); };
  // Columns one output vector reads, from its first: kS * lanes + kK - 1 (stride 2 loads two
  // whole vectors per tap).
  const int64_t reach = kS * lanes + kK - 1;
  constexpr int64_t kInRows = (kRows - 1) * kS + kK;
  // The masks of the vectors at the ends of a row depend on the column only: made once per
  // plane for the first kCachedVectors vectors (narrow planes, where every vector has some).
  constexpr int64_t kCachedVectors = 8;
  M masks[kCachedVectors][2][kK];
  const int64_t vectors = (ow_size + lanes - 1) / lanes;
  auto make_masks = [&](int64_t first, M(&m)[2][kK]) HWY_ATTR {
    for (int64_t kw = 0; kw < kK; ++kw) {
      m[0][kw] = inside(first + kw);
      if constexpr (kS == 2) m[1][kw] = inside(first + kw + lanes);
    }
  };
  for (int64_t v = 0; v < std::min(vectors, kCachedVectors); ++v) {
    make_masks(v * lanes * kS - pw, masks[v]);
  }
  for (int64_t oh0 = 0; oh0 < oh_size; oh0 += kRows) {
    const int64_t rows_here = std::min(kRows, oh_size - oh0);
    const float* in_rows[kInRows];
    for (int64_t r = 0; r < kInRows; ++r) {
      const int64_t ih = oh0 * kS - ph + r;
      in_rows[r] = ih >= 0 && ih < ih_size ? x + ih * iw_size : zero_row;
    }
    for (int64_t ow = 0; ow < ow_size; ow += lanes) {
      const int64_t first = ow * kS - pw;
      const bool interior = first >= 0 && first + reach <= iw_size;
      M computed[2][kK];
      const int64_t v = ow / lanes;
      if (!interior && v >= kCachedVectors) make_masks(first, computed);
      const M(&m)[2][kK] = v < kCachedVectors ? masks[v] : computed;
      // Per output row, one accumulator per window row: kK chains of kK FMAs each instead of
      // one chain of kK * kK, whose FMA latency bound the 7 x 7 maps (one output row at a
      // time) to a third of the FMA throughput.
      V acc[kRows][kK];
      for (int64_t j = 0; j < kRows; ++j) {
        acc[j][0] = vbias;
        for (int64_t kh = 1; kh < kK; ++kh) acc[j][kh] = hn::Zero(d);
      }
      for (int64_t r = 0; r < kInRows; ++r) {
        const float* in = in_rows[r] + first;
        V taps[kK];
        if (interior) {
          if constexpr (kS == 1) {
            for (int64_t kw = 0; kw < kK; ++kw) taps[kw] = hn::LoadU(d, in + kw);
          } else {
            // Even taps from the pairs at 0 and 2 (and 4), odd ones from the pair at 0 (and 2).
            for (int64_t kw = 0; kw < kK; kw += 2) {
              const V a = hn::LoadU(d, in + kw), b = hn::LoadU(d, in + kw + lanes);
              taps[kw] = hn::ConcatEven(d, b, a);
              if (kw + 1 < kK) taps[kw + 1] = hn::ConcatOdd(d, b, a);
            }
          }
        } else {
          for (int64_t kw = 0; kw < kK; ++kw) {
            if constexpr (kS == 1) {
              taps[kw] = hn::MaskedLoad(m[0][kw], d, in + kw);
            } else {
              taps[kw] = hn::ConcatEven(d, hn::MaskedLoad(m[1][kw], d, in + kw + lanes),
                                        hn::MaskedLoad(m[0][kw], d, in + kw));
            }
          }
        }
        // Output row j reads input row r as its window row kh = r - j * kS.
        for (int64_t j = 0; j < kRows; ++j) {
          const int64_t kh = r - j * kS;
          if (kh < 0 || kh >= kK) continue;
          for (int64_t kw = 0; kw < kK; ++kw)
            acc[j][kh] = hn::MulAdd(wv[kh * kK + kw], taps[kw], acc[j][kh]);
        }
      }
      const size_t valid = static_cast<size_t>(std::min(lanes, ow_size - ow));
      for (int64_t j = 0; j < rows_here; ++j) {
        V sum = acc[j][0];
        for (int64_t kh = 1; kh < kK; ++kh) sum = hn::Add(sum, acc[j][kh]);
        const V v = clamped ? hn::Min(hn::Max(sum, lo), hi) : sum;
        float* out = y + (oh0 + j) * ow_size + ow;
        if (valid == static_cast<size_t>(lanes)) {
          hn::StoreU(v, d, out);
        } else {
          hn::BlendedStore(v, hn::FirstN(d, valid), d, out);
        }
      }
    }
  }
}
#endif

using PaddedKernel = void (*)(const WindowGeometry&, const float*, int64_t, const float*, float,
                              const DepthwiseClamp&, float*);

PaddedKernel pick_padded_kernel(const WindowGeometry& g) {
  if (g.kernel[0] != g.kernel[1] || g.stride[0] != g.stride[1]) return nullptr;
  const int64_t k = g.kernel[0], s = g.stride[0];
  if (k == 3 && s == 1) return depthwise_padded<3, 1>;
  if (k == 3 && s == 2) return depthwise_padded<3, 2>;
  if (k == 5 && s == 1) return depthwise_padded<5, 1>;
  if (k == 5 && s == 2) return depthwise_padded<5, 2>;
  return nullptr;
}

using DirectKernel = void (*)(const WindowGeometry&, const float*, const float*, float,
                              const DepthwiseClamp&, float*);
using RowsKernel = void (*)(const WindowGeometry&, const float*, const float*, float,
                            const DepthwiseClamp&, float*, float*);

RowsKernel pick_rows_kernel(const WindowGeometry& g) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (g.kernel[0] != g.kernel[1] || g.stride[0] != g.stride[1] || g.dilation[0] != 1 ||
      g.dilation[1] != 1) {
    return nullptr;
  }
  const int64_t k = g.kernel[0], s = g.stride[0];
  // Padding up to the half-width, as "same" convs have: other padding (rare) takes the general
  // kernel, which is tested for it.
  if (g.pad[0] < 0 || g.pad[1] < 0 || g.pad[0] > k / 2 || g.pad[1] > k / 2) return nullptr;
  constexpr int64_t kLimit = int64_t{1} << 26;
  if (g.in[1] >= kLimit) return nullptr;
  // Two output rows at a time, except on short planes of an odd height (7 x 7 maps), where the
  // last pair would compute a whole row for nothing.
  const bool pairs = g.out[0] % 2 == 0 || g.out[0] >= 16;
  if (k == 3 && s == 1) return pairs ? depthwise_rows<3, 1, 2> : depthwise_rows<3, 1, 1>;
  if (k == 3 && s == 2) return pairs ? depthwise_rows<3, 2, 2> : depthwise_rows<3, 2, 1>;
  if (k == 5 && s == 1) return pairs ? depthwise_rows<5, 1, 2> : depthwise_rows<5, 1, 1>;
  if (k == 5 && s == 2) return pairs ? depthwise_rows<5, 2, 2> : depthwise_rows<5, 2, 1>;
#else
  (void)g;
#endif
  return nullptr;
}

DirectKernel pick_direct_kernel(const WindowGeometry& g) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (g.kernel[0] != g.kernel[1] || g.stride[0] != g.stride[1]) return nullptr;
  // The edge masks compare column indices in 32-bit lanes: far from their limit below these.
  constexpr int64_t kLimit = int64_t{1} << 26;
  if (g.in[1] >= kLimit || g.pad[1] >= kLimit || g.dilation[1] >= kLimit) return nullptr;
  const int64_t k = g.kernel[0], s = g.stride[0];
  if (k == 3 && s == 1) return depthwise_direct<3, 1>;
  if (k == 3 && s == 2) return depthwise_direct<3, 2>;
  if (k == 5 && s == 1) return depthwise_direct<5, 1>;
  if (k == 5 && s == 2) return depthwise_direct<5, 2>;
#else
  (void)g;
#endif
  return nullptr;
}

void depthwise_plane_any(const WindowGeometry& g, const float* HWY_RESTRICT x,
                         const float* HWY_RESTRICT w, float bias, const DepthwiseClamp& clamp,
                         float* HWY_RESTRICT y, float* HWY_RESTRICT scratch) {
  if (const RowsKernel rows = pick_rows_kernel(g)) {
    rows(g, x, w, bias, clamp, y, scratch);
    return;
  }
  if (const DirectKernel direct = pick_direct_kernel(g)) {
    direct(g, x, w, bias, clamp, y);
    return;
  }
  const PaddedKernel kernel = pick_padded_kernel(g);
  if (!kernel) {
    depthwise_plane(g, x, w, bias, y);
    if (clamp.active()) {
      const int64_t n = g.out[0] * g.out[1];
      for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(y[i], clamp.lo), clamp.hi);
    }
    return;
  }
  const PaddedPlane pp = padded_size(g);
  const int64_t ph = g.pad[0], pw = g.pad[1];
  const int64_t ih_size = g.in[0], iw_size = g.in[1];
  // Only the border is zeroed: the interior is overwritten by the copy. The pads are a few
  // floats, where a loop beats a call to memset.
  const int64_t right = pp.cols - pw - iw_size;
  for (int64_t r = 0; r < pp.rows; ++r) {
    float* dst = scratch + r * pp.cols;
    const int64_t ih = r - ph;
    if (ih < 0 || ih >= ih_size) {
      std::fill(dst, dst + pp.cols, 0.0f);
      continue;
    }
    for (int64_t i = 0; i < pw; ++i) dst[i] = 0.0f;
    std::copy(x + ih * iw_size, x + (ih + 1) * iw_size, dst + pw);
    for (int64_t i = 0; i < right; ++i) dst[pw + iw_size + i] = 0.0f;
  }
  // The slack is read (into lanes that are never stored) but must hold finite values so that
  // no lane raises a floating-point exception or slows down on denormals.
  std::fill(scratch + pp.rows * pp.cols, scratch + pp.rows * pp.cols + kPlaneSlack, 0.0f);
  kernel(g, scratch, pp.cols, w, bias, clamp, y);
}

size_t padded_floats(const WindowGeometry& g) {
  if (pick_rows_kernel(g)) return static_cast<size_t>(g.in[1]);  // depthwise_rows' zero row
  if (pick_direct_kernel(g)) return 0;
  const PaddedPlane pp = padded_size(g);
  return static_cast<size_t>(pp.rows * pp.cols + kPlaneSlack);
}

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(depthwise_plane_any);
HWY_EXPORT(padded_floats);

void depthwise_conv2d_plane(const WindowGeometry& g, const float* x, const float* w, float bias,
                            const DepthwiseClamp& clamp, float* y, float* scratch) {
  HWY_DYNAMIC_DISPATCH(depthwise_plane_any)(g, x, w, bias, clamp, y, scratch);
}

size_t depthwise_scratch_floats(const WindowGeometry& g) {
  return HWY_DYNAMIC_DISPATCH(padded_floats)(g);
}

}  // namespace kiln::cpu
#endif  // HWY_ONCE
