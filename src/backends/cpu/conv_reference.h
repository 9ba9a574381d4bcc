// Direct (loop-nest) Conv and ConvTranspose for element types without a fast path, e.g.
// double. Accumulates in `Acc`. Same layouts and geometry conventions as conv_f32.h.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/conv_f32.h"
#include "core/thread_pool.h"

namespace kiln::cpu {

namespace conv_reference_detail {

// Calls body(window_index, image_offset) for every tap of window position `pos` (a flat
// index) that falls inside the image; taps are visited in weight order, `tap_index` counting.
template <class Body>
void for_each_tap(const WindowGeometry& g, int64_t pos, Body&& body) {
  const size_t rank = g.rank();
  int64_t o[16], t[16] = {};
  for (size_t d = rank; d-- > 0;) {
    o[d] = pos % g.out[d];
    pos /= g.out[d];
  }
  const int64_t taps = g.kernel_size();
  for (int64_t k = 0; k < taps; ++k) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t i = o[d] * g.stride[d] + t[d] * g.dilation[d] - g.pad[d];
      inside = inside && i >= 0 && i < g.in[d];
      offset = offset * g.in[d] + i;
    }
    if (inside) body(k, offset);
    for (size_t d = rank; d-- > 0;) {
      if (++t[d] < g.kernel[d]) break;
      t[d] = 0;
    }
  }
}

}  // namespace conv_reference_detail

template <class T, class Acc>
void conv_reference(const ConvProblem& p, const T* x, const T* w, const T* bias, T* y) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
  const int64_t in_size = g.in_size(), out_size = g.out_size(), taps = g.kernel_size();
  parallel_for(p.batch * p.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / p.out_channels, m = plane % p.out_channels;
      const int64_t grp = m / mg;
      const T* wm = w + m * cg * taps;
      for (int64_t pos = 0; pos < out_size; ++pos) {
        Acc acc = bias ? static_cast<Acc>(bias[m]) : Acc{0};
        for (int64_t c = 0; c < cg; ++c) {
          const T* xc = x + (n * p.in_channels + grp * cg + c) * in_size;
          const T* wc = wm + c * taps;
          conv_reference_detail::for_each_tap(g, pos, [&](int64_t k, int64_t offset) {
            acc += static_cast<Acc>(wc[k]) * static_cast<Acc>(xc[offset]);
          });
        }
        y[plane * out_size + pos] = static_cast<T>(acc);
      }
    }
  });
}

template <class T, class Acc>
void conv_transpose_reference(const ConvProblem& p, const T* x, const T* w, const T* bias, T* y) {
  const WindowGeometry& g = p.geometry;
  const int64_t cg = p.in_channels / p.group, mg = p.out_channels / p.group;
  const int64_t y_size = g.in_size(), x_size = g.out_size(), taps = g.kernel_size();
  parallel_for(p.batch * p.out_channels, 1, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(static_cast<size_t>(y_size));
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / p.out_channels, m = plane % p.out_channels;
      const int64_t grp = m / mg, mi = m % mg;
      std::fill(acc.begin(), acc.end(), bias ? static_cast<Acc>(bias[m]) : Acc{0});
      for (int64_t c = 0; c < cg; ++c) {
        const T* xc = x + (n * p.in_channels + grp * cg + c) * x_size;
        const T* wc = w + ((grp * cg + c) * mg + mi) * taps;
        for (int64_t pos = 0; pos < x_size; ++pos) {
          const Acc xv = static_cast<Acc>(xc[pos]);
          conv_reference_detail::for_each_tap(g, pos, [&](int64_t k, int64_t offset) {
            acc[static_cast<size_t>(offset)] += static_cast<Acc>(wc[k]) * xv;
          });
        }
      }
      for (int64_t i = 0; i < y_size; ++i)
        y[plane * y_size + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
    }
  });
}

}  // namespace kiln::cpu
