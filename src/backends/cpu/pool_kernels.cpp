#include "backends/cpu/pool_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "backends/cpu/pool_max_row.h"
#include "core/thread_pool.h"
#include "kiln/float_types.h"

namespace kiln::cpu {

namespace {

constexpr size_t kMaxRank = 16;

// One window: per axis, the image coordinate of tap 0 and the taps [lo, hi) inside the image.
struct Window {
  int64_t base[kMaxRank];
  int64_t lo[kMaxRank];
  int64_t hi[kMaxRank];
  bool empty;
};

// Math type: float for the float-like types, double for double, the type itself for integers.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double,
                               std::conditional_t<std::is_integral_v<T>, T, float>>;

template <class T>
Acc<T> load(const T& v) {
  return static_cast<Acc<T>>(v);
}
template <class T>
T store(Acc<T> v) {
  return T(v);
}

template <class T>
constexpr Acc<T> lowest() {
  if constexpr (std::is_integral_v<T>) {
    return std::numeric_limits<T>::lowest();
  } else {
    return -std::numeric_limits<Acc<T>>::infinity();
  }
}

// Calls body(plane, out_index, window) for every output position of every plane. The windows of
// all planes are spread over the job system in chunks of about kTapsPerChunk taps, so that one
// plane of large windows is split too (and a run's deadline is checked between its chunks).
template <class Body>
void for_each_window(const PoolShape& s, Body&& body) {
  constexpr int64_t kTapsPerChunk = 32768;
  const WindowGeometry& g = s.geometry;
  const size_t rank = g.rank();
  const int64_t out_size = g.out_size();
  if (out_size == 0) return;
  const int64_t grain = std::max<int64_t>(1, kTapsPerChunk / std::max<int64_t>(1, g.kernel_size()));
  parallel_for(s.planes * out_size, grain, [&](int64_t begin, int64_t end) {
    int64_t plane = begin / out_size;
    int64_t j = begin % out_size;
    int64_t o[kMaxRank] = {};  // the multi-index of window j
    for (int64_t d = static_cast<int64_t>(rank) - 1, rest = j; d >= 0; --d) {
      o[d] = rest % g.out[d];
      rest /= g.out[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      Window w;
      w.empty = false;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t base = o[d] * g.stride[d] - g.pad[d];
        const int64_t dil = g.dilation[d];
        int64_t lo = base >= 0 ? 0 : (-base + dil - 1) / dil;
        int64_t hi = base >= g.in[d] ? 0 : (g.in[d] - 1 - base) / dil + 1;
        hi = std::min(hi, g.kernel[d]);
        w.base[d] = base;
        w.lo[d] = lo;
        w.hi[d] = hi;
        if (lo >= hi) w.empty = true;
      }
      body(plane, j, w);
      if (++j == out_size) {  // the next plane starts at window 0
        j = 0;
        ++plane;
      }
      for (size_t d = rank; d-- > 0;) {
        if (++o[d] < g.out[d]) break;
        o[d] = 0;
      }
    }
  });
}

// Calls f(row_major_offset, column_major_offset) for every tap of `w` inside the image.
template <class F>
void for_each_tap(const WindowGeometry& g, const Window& w, F&& f) {
  if (w.empty) return;
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  int64_t k[kMaxRank];
  for (size_t d = 0; d < rank; ++d) k[d] = w.lo[d];
  for (;;) {
    int64_t rm = 0, cm = 0, cm_stride = 1;
    for (size_t d = 0; d < last; ++d) rm = rm * g.in[d] + w.base[d] + k[d] * g.dilation[d];
    for (size_t d = 0; d < rank; ++d) {
      if (d != last) cm += (w.base[d] + k[d] * g.dilation[d]) * cm_stride;
      cm_stride *= g.in[d];
    }
    const int64_t last_stride = cm_stride / g.in[last];
    rm *= g.in[last];
    for (int64_t t = w.lo[last]; t < w.hi[last]; ++t) {
      const int64_t i = w.base[last] + t * g.dilation[last];
      f(rm + i, cm + i * last_stride);
    }
    size_t d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++k[d] < w.hi[d]) break;
      k[d] = w.lo[d];
    }
  }
}

// max(best, v) with the general path's NaN rule: a tap replaces the running maximum only when
// it compares greater, so a NaN never replaces a number and a NaN in the first tap stays. One
// maxss (no branch): windows of noisy activations made the comparison a coin flip, and the
// mispredictions cost more than the rest of the loop (SqueezeNet's pools were a third of its
// run time).
inline float max_tap(float best, float v) { return v > best ? v : best; }
// Window rows the vectorised inner loop takes; taller windows keep the clamped loop.
constexpr int64_t kMaxRows = 16;

// The common 2-D float case without an Indices output. Output columns whose window lies wholly
// inside the image (all but a few at the edges) take a vectorised loop with no bounds checks
// (max_pool_row_f32: each output vector's taps in registers); the edge columns keep the
// clamped loops.
void max_pool_2d_f32(const PoolShape& s, const float* x, float* y) {
  const WindowGeometry& g = s.geometry;
  const int64_t ih = g.in[0], iw = g.in[1], oh = g.out[0], ow = g.out[1];
  const int64_t kh = g.kernel[0], kw = g.kernel[1], sh = g.stride[0], sw = g.stride[1];
  const int64_t dh = g.dilation[0], dw = g.dilation[1], ph = g.pad[0], pw = g.pad[1];
  // Columns [inner_begin, inner_end) have every tap inside the image.
  const int64_t inner_begin = std::min(ow, (pw + sw - 1) / sw);
  const int64_t last_inside = iw - 1 - (kw - 1) * dw + pw;  // largest c * sw still inside
  const int64_t inner_end =
      last_inside < 0 ? inner_begin : std::max(inner_begin, std::min(ow, last_inside / sw + 1));
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, oh * ow * kh * kw));
  parallel_for(s.planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const float* xp = x + plane * ih * iw;
      float* yp = y + plane * oh * ow;
      for (int64_t r = 0; r < oh; ++r) {
        const int64_t base_r = r * sh - ph;
        const int64_t r_lo = base_r >= 0 ? 0 : (-base_r + dh - 1) / dh;
        const int64_t r_hi = std::min(kh, base_r >= ih ? 0 : (ih - 1 - base_r) / dh + 1);
        float* out = yp + r * ow;
        auto clamped = [&](int64_t c) {
          const int64_t base_c = c * sw - pw;
          const int64_t c_lo = base_c >= 0 ? 0 : (-base_c + dw - 1) / dw;
          const int64_t c_hi = std::min(kw, base_c >= iw ? 0 : (iw - 1 - base_c) / dw + 1);
          float best = -std::numeric_limits<float>::infinity();
          bool any = false;
          for (int64_t i = r_lo; i < r_hi; ++i) {
            const float* row = xp + (base_r + i * dh) * iw + base_c;
            for (int64_t j = c_lo; j < c_hi; ++j) {
              best = any ? max_tap(best, row[j * dw]) : row[j * dw];  // the first tap seeds it
              any = true;
            }
          }
          out[c] = best;
        };
        for (int64_t c = 0; c < inner_begin; ++c) clamped(c);
        if (r_lo < r_hi && r_hi - r_lo <= kMaxRows) {
          // Taps in the same order as the clamped loop (rows, then columns), so a NaN lands the
          // same way.
          const float* rows[kMaxRows];
          for (int64_t i = r_lo; i < r_hi; ++i) rows[i - r_lo] = xp + (base_r + i * dh) * iw - pw;
          max_pool_row_f32(rows, r_hi - r_lo, kw, dw, sw, inner_begin, inner_end, out);
        } else {
          for (int64_t c = inner_begin; c < inner_end; ++c) clamped(c);
        }
        for (int64_t c = inner_end; c < ow; ++c) clamped(c);
      }
    }
  });
}

}  // namespace

template <class T>
void max_pool(const PoolShape& s, const T* x, T* y, int64_t* indices, bool column_major) {
  if constexpr (std::is_same_v<T, float>) {
    if (s.geometry.rank() == 2 && indices == nullptr) return max_pool_2d_f32(s, x, y);
  }
  const int64_t in_size = s.geometry.in_size();
  const int64_t out_size = s.geometry.out_size();
  for_each_window(s, [&](int64_t plane, int64_t j, const Window& w) {
    const T* xp = x + plane * in_size;
    Acc<T> best = lowest<T>();
    int64_t best_index = -1;
    for_each_tap(s.geometry, w, [&](int64_t rm, int64_t cm) {
      const Acc<T> v = load(xp[rm]);
      if (v > best || best_index < 0) {
        best = v;
        best_index = column_major ? cm : rm;
      }
    });
    y[plane * out_size + j] = store<T>(best);
    if (indices) indices[plane * out_size + j] = best_index < 0 ? -1 : plane * in_size + best_index;
  });
}

template <class T>
void average_pool(const PoolShape& s, const T* x, T* y, bool count_include_pad) {
  const WindowGeometry& g = s.geometry;
  const int64_t in_size = g.in_size();
  const int64_t out_size = g.out_size();
  for_each_window(s, [&](int64_t plane, int64_t j, const Window& w) {
    const T* xp = x + plane * in_size;
    Acc<T> sum = 0;
    for_each_tap(g, w, [&](int64_t rm, int64_t) { sum += load(xp[rm]); });
    int64_t count = 1;
    for (size_t d = 0; d < g.rank(); ++d) {
      if (count_include_pad) {
        // Taps inside the padded image [-pad, in + pad_end): every window starts inside it,
        // but a ceil_mode window may reach past its end.
        const int64_t limit = g.in[d] + s.pad_end[d] - 1 - w.base[d];
        const int64_t hi = limit < 0 ? 0 : std::min(limit / g.dilation[d] + 1, g.kernel[d]);
        count *= hi;
      } else {
        count *= std::max<int64_t>(0, w.hi[d] - w.lo[d]);
      }
    }
    y[plane * out_size + j] =
        count > 0 ? store<T>(sum / static_cast<Acc<T>>(count)) : store<T>(Acc<T>(0));
  });
}

template <class T>
void lp_pool(const PoolShape& s, const T* x, T* y, float p) {
  const int64_t in_size = s.geometry.in_size();
  const int64_t out_size = s.geometry.out_size();
  for_each_window(s, [&](int64_t plane, int64_t j, const Window& w) {
    const T* xp = x + plane * in_size;
    Acc<T> sum = 0;
    for_each_tap(s.geometry, w, [&](int64_t rm, int64_t) {
      const Acc<T> v = std::abs(load(xp[rm]));
      sum += p == 2.0f ? v * v : (p == 1.0f ? v : std::pow(v, static_cast<Acc<T>>(p)));
    });
    const Acc<T> r = p == 2.0f ? std::sqrt(sum)
                               : (p == 1.0f ? sum : std::pow(sum, static_cast<Acc<T>>(1.0 / p)));
    y[plane * out_size + j] = store<T>(r);
  });
}

namespace {

template <class Reduce>
void for_each_plane(int64_t planes, int64_t plane_size, Reduce&& reduce) {
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(plane_size, 1));
  parallel_for(planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) reduce(i);
  });
}

}  // namespace

template <class T>
void global_max_pool(int64_t planes, int64_t plane_size, const T* x, T* y) {
  for_each_plane(planes, plane_size, [&](int64_t i) {
    const T* xp = x + i * plane_size;
    Acc<T> best = lowest<T>();
    for (int64_t j = 0; j < plane_size; ++j) best = std::max(best, load(xp[j]));
    y[i] = store<T>(best);
  });
}

template <class T>
void global_average_pool(int64_t planes, int64_t plane_size, const T* x, T* y) {
  for_each_plane(planes, plane_size, [&](int64_t i) {
    const T* xp = x + i * plane_size;
    // Eight partial sums: vectorisable, and less rounding than one running sum.
    Acc<T> part[8] = {};
    int64_t j = 0;
    for (; j + 8 <= plane_size; j += 8) {
      for (int u = 0; u < 8; ++u) part[u] += load(xp[j + u]);
    }
    Acc<T> sum = 0;
    for (; j < plane_size; ++j) sum += load(xp[j]);
    for (int u = 0; u < 8; ++u) sum += part[u];
    y[i] = store<T>(plane_size > 0 ? sum / static_cast<Acc<T>>(plane_size) : Acc<T>(0));
  });
}

template <class T>
void global_lp_pool(int64_t planes, int64_t plane_size, const T* x, T* y, float p) {
  for_each_plane(planes, plane_size, [&](int64_t i) {
    const T* xp = x + i * plane_size;
    Acc<T> sum = 0;
    for (int64_t j = 0; j < plane_size; ++j) {
      sum += std::pow(std::abs(load(xp[j])), static_cast<Acc<T>>(p));
    }
    y[i] = store<T>(std::pow(sum, static_cast<Acc<T>>(1.0 / p)));
  });
}

#define KILN_POOL_FLOAT(T)                                                   \
  template void max_pool<T>(const PoolShape&, const T*, T*, int64_t*, bool); \
  template void average_pool<T>(const PoolShape&, const T*, T*, bool);       \
  template void lp_pool<T>(const PoolShape&, const T*, T*, float);           \
  template void global_max_pool<T>(int64_t, int64_t, const T*, T*);          \
  template void global_average_pool<T>(int64_t, int64_t, const T*, T*);      \
  template void global_lp_pool<T>(int64_t, int64_t, const T*, T*, float);
KILN_POOL_FLOAT(float)
KILN_POOL_FLOAT(double)
KILN_POOL_FLOAT(Float16)
KILN_POOL_FLOAT(BFloat16)
#undef KILN_POOL_FLOAT

#define KILN_POOL_INT(T)                                                     \
  template void max_pool<T>(const PoolShape&, const T*, T*, int64_t*, bool); \
  template void global_max_pool<T>(int64_t, int64_t, const T*, T*);
KILN_POOL_INT(int8_t)
KILN_POOL_INT(uint8_t)
#undef KILN_POOL_INT

}  // namespace kiln::cpu
