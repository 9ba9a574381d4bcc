#include "backends/cpu/resize_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kiln/error.h"

namespace kiln::cpu {
namespace {

template <class T>
T from_accumulator(auto v) {
  if constexpr (std::is_integral_v<T>) {
    // Interpolated integers are rounded and saturated rather than wrapped.
    const double r = std::nearbyint(static_cast<double>(v));
    if (!(r >= static_cast<double>(std::numeric_limits<T>::lowest())))
      return std::numeric_limits<T>::lowest();
    if (r >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return static_cast<T>(v);
  }
}

struct Combo {
  int64_t offset;
  double weight;
};

// Weighted resize: every output element sums its tap product. The taps of the leading axes
// are combined once per output row; the last axis's taps run in the inner loop.
template <class T>
void resize_interpolate(const T* in, T* out, const Shape& in_shape, const Shape& out_shape,
                        std::span<const AxisTaps> taps, float extrapolation) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const size_t rank = out_shape.size();
  const Shape in_strides = [&] {
    Shape s;
    s.resize(rank);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      s[d] = stride;
      stride *= in_shape[d];
    }
    return s;
  }();
  const int64_t row_len = out_shape[rank - 1];
  const int64_t rows = out_shape.element_count() / row_len;
  int64_t max_combos = 1;
  for (size_t d = 0; d + 1 < rank; ++d) max_combos *= taps[d].max_count;
  const AxisTaps& inner = taps[rank - 1];
  const T fill = static_cast<T>(extrapolation);
  const int64_t work_per_row = row_len * max_combos * inner.max_count;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(work_per_row, 1));

  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<Combo> combos(static_cast<size_t>(max_combos));
    Shape coord;
    coord.resize(rank > 0 ? rank - 1 : 0, 0);
    int64_t rem = begin;
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      coord[d] = rem % out_shape[d];
      rem /= out_shape[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      T* dst = out + row * row_len;
      size_t count = 1;
      combos[0] = {0, 1.0};
      bool outside = false;
      for (size_t d = 0; d + 1 < rank && !outside; ++d) {
        const AxisTaps& a = taps[d];
        const int64_t f = a.first[coord[d]], n = a.first[coord[d] + 1] - f;
        if (a.index[f] < 0) {
          outside = true;
          break;
        }
        // Expand in place from the back: entry i becomes entries i*n .. i*n+n-1.
        for (size_t i = count; i-- > 0;) {
          const Combo c = combos[i];
          for (int64_t t = n; t-- > 0;) {
            combos[i * n + t] = {c.offset + a.index[f + t] * in_strides[d],
                                 c.weight * static_cast<double>(a.weight[f + t])};
          }
        }
        count *= static_cast<size_t>(n);
      }
      if (outside) {
        std::fill(dst, dst + row_len, fill);
      } else {
        for (int64_t x = 0; x < row_len; ++x) {
          const int64_t f = inner.first[x], n = inner.first[x + 1] - f;
          if (inner.index[f] < 0) {
            dst[x] = fill;
            continue;
          }
          Acc sum = 0;
          for (size_t c = 0; c < count; ++c) {
            const T* src = in + combos[c].offset;
            Acc part = 0;
            for (int64_t t = 0; t < n; ++t) {
              part +=
                  static_cast<Acc>(inner.weight[f + t]) * static_cast<Acc>(src[inner.index[f + t]]);
            }
            sum += static_cast<Acc>(combos[c].weight) * part;
          }
          dst[x] = from_accumulator<T>(sum);
        }
      }
      for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
        if (++coord[d] < out_shape[d]) break;
        coord[d] = 0;
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// 8-bit antialiased resize, rounded the way ONNX Runtime rounds it.
//
// ONNX Runtime's CPU kernel (after Pillow's Resample.c) resizes uint8 tensors with antialias=1 in
// fixed point rather than in float: each axis's filter weights are normalised in float, scaled
// by 2^22 and rounded to integers; an output starts its integer sum at 2^21 (one half), adds
// input * weight, and is shifted right by 22 bits (so it is rounded half up) and clamped to
// 0..255. The axes are resized one after the other, innermost first, and every pass stores its
// result as uint8, so the intermediate image is rounded as well. Rounding the exact weighted
// sum once, as the float path does, leaves a fifth of the pixels of a typical upscale one level
// off ONNX Runtime, and chains of such resizes drift further; uint8 pipelines are compared bit
// for bit, so this path reproduces the whole recipe, down to the float expressions that decide
// the weights. It covers upsampling too: with antialias=1 ONNX Runtime takes this path for
// every scale, with the filter unstretched when the scale is above one. int8 stays on the float
// path: ONNX Runtime runs it through the same code but clamps to 0..255 before the cast, so
// every negative result comes out as 0, which is no reference to follow.

constexpr int kFixedPointBits = 22;

// The filters as ONNX Runtime evaluates them: a different but equivalent float expression can
// round a weight to the neighbouring 2^-22 step.
float fixed_point_linear_filter(float t) {
  t = std::fabs(t);
  return t < 1.0f ? 1.0f - t : 0.0f;
}

float fixed_point_cubic_filter(float t, float a) {
  t = std::fabs(t);
  if (t < 1.0f) return ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
  if (t < 2.0f) return (((t - 5.0f) * t + 8.0f) * t - 4.0f) * a;
  return 0.0f;
}

// The fixed-point taps of one axis: output coordinate o reads the input from start[o] on, with
// weights weight[first[o]] .. weight[first[o + 1] - 1]. `outside` marks the coordinates that
// tf_crop_and_resize maps outside the input, which take the extrapolation value.
struct FixedPointTaps {
  std::vector<int64_t> start;
  std::vector<int64_t> first;
  std::vector<int32_t> weight;
  std::vector<uint8_t> outside;
  bool any_outside = false;
};

void compute_fixed_point_taps(const ResizeAxis& axis, const ResizeOptions& options,
                              FixedPointTaps& taps) {
  const bool cubic = options.mode == ResizeMode::Cubic;
  const int64_t in = axis.in;
  // The filter is stretched by the inverse scale when downsampling and used as it is otherwise.
  const float stretch = 1.0f / axis.scale;
  const float half_width = cubic ? 2.0f : 1.0f;
  const float support = stretch >= 1.0f ? half_width * stretch : half_width;
  const float filter_scale = stretch >= 1.0f ? 1.0f / stretch : 1.0f;
  const int64_t window = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  taps.start.assign(static_cast<size_t>(axis.out), 0);
  taps.outside.assign(static_cast<size_t>(axis.out), 0);
  taps.first.assign(1, 0);
  taps.weight.clear();
  taps.any_outside = false;
  std::vector<float> w;
  for (int64_t o = 0; o < axis.out; ++o) {
    // ONNX Runtime maps an axis of scale one onto itself, whatever the coordinate mode.
    const float x = stretch == 1.0f ? static_cast<float>(o)
                                    : bounded_source_coordinate(static_cast<float>(o), axis,
                                                                options.coordinate);
    // Pillow's convention: sample j covers [j, j + 1), so the filter is centred at x + 0.5.
    const float center = x + 0.5f;
    if (options.coordinate == ResizeCoordinateMode::TfCropAndResize &&
        (center - 0.5f < 0.0f || center - 0.5f > static_cast<float>(in - 1))) {
      taps.outside[o] = 1;
      taps.any_outside = true;
    }
    int64_t lo = static_cast<int64_t>(std::floor(center - support + 0.5f));
    int64_t hi =
        lo + std::clamp<int64_t>(static_cast<int64_t>(std::floor(center + support + 0.5f)) - lo, 0,
                                 window);
    const int64_t lo_in = std::clamp<int64_t>(lo, 0, in);
    const int64_t hi_in = std::clamp<int64_t>(hi, 0, in);
    if (options.exclude_outside) {
      lo = lo_in;
      hi = hi_in;
    }
    const int64_t n = hi - lo;
    w.assign(static_cast<size_t>(n), 0.0f);
    float total = 0.0f;
    for (int64_t k = 0; k < n; ++k) {
      const float t = (static_cast<float>(lo + k) - center + 0.5f) * filter_scale;
      w[k] =
          cubic ? fixed_point_cubic_filter(t, options.cubic_coeff_a) : fixed_point_linear_filter(t);
      total += w[k];
    }
    // Taps beyond the border repeat the edge sample: their weights join the edge tap's, summed
    // in this order. The total above still counts them, so the normalisation is unchanged.
    int64_t skip = 0;
    if (!options.exclude_outside && lo_in < hi_in) {
      skip = std::clamp<int64_t>(-lo, 0, n - 1);
      for (int64_t k = 0; k < skip; ++k) w[skip] += w[k];
      const int64_t beyond = std::clamp<int64_t>(hi - in, 0, n - 1);
      for (int64_t k = n - beyond; k < n; ++k) w[n - beyond - 1] += w[k];
    }
    const float inv_total = total == 0.0f ? 1.0f : 1.0f / total;
    const float one = static_cast<float>(int32_t{1} << kFixedPointBits);
    for (int64_t k = 0; k < hi_in - lo_in; ++k) {
      const float normalized = w[skip + k] * inv_total;
      taps.weight.push_back(static_cast<int32_t>(std::round(normalized * one)));
    }
    taps.start[o] = lo_in;
    taps.first.push_back(static_cast<int64_t>(taps.weight.size()));
  }
}

// Resizes the middle axis of src, viewed as [outer, in, inner], into dst, [outer, out, inner].
void fixed_point_pass(const uint8_t* src, uint8_t* dst, int64_t outer, int64_t in, int64_t inner,
                      const FixedPointTaps& taps) {
  const int64_t out = static_cast<int64_t>(taps.start.size());
  const int64_t rows = outer * out;
  const int64_t taps_per_row =
      std::max<int64_t>(1, static_cast<int64_t>(taps.weight.size()) / std::max<int64_t>(out, 1));
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(inner * taps_per_row, 1));
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    // 64-bit sums: the same results as ONNX Runtime's 32-bit ones wherever those do not overflow.
    std::vector<int64_t> acc(static_cast<size_t>(inner));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / out, o = row % out;
      std::fill(acc.begin(), acc.end(), int64_t{1} << (kFixedPointBits - 1));
      const uint8_t* base = src + (b * in + taps.start[o]) * inner;
      for (int64_t k = taps.first[o]; k < taps.first[o + 1]; ++k, base += inner) {
        const int64_t wk = taps.weight[k];
        for (int64_t i = 0; i < inner; ++i) acc[i] += wk * base[i];
      }
      uint8_t* d = dst + row * inner;
      for (int64_t i = 0; i < inner; ++i) {
        d[i] = static_cast<uint8_t>(std::clamp<int64_t>(acc[i] >> kFixedPointBits, 0, 255));
      }
    }
  });
}

void resize_uint8_antialias(const Tensor& x, Tensor& y, std::span<const ResizeAxis> axes,
                            const ResizeOptions& options) {
  const size_t rank = axes.size();
  std::vector<FixedPointTaps> taps(rank);
  for (size_t d = 0; d < rank; ++d) compute_fixed_point_taps(axes[d], options, taps[d]);

  // Innermost axis first; an axis whose length does not change is copied as it is, as ONNX
  // Runtime does, even when its scale is not exactly one.
  std::vector<size_t> passes;
  for (size_t d = rank; d-- > 0;) {
    if (axes[d].out != axes[d].in) passes.push_back(d);
  }
  const uint8_t* src = x.data<uint8_t>();
  uint8_t* out = y.mutable_data<uint8_t>();
  if (passes.empty()) std::copy_n(src, x.element_count(), out);
  Shape shape = x.shape();
  std::vector<uint8_t> buffers[2];
  for (size_t p = 0; p < passes.size(); ++p) {
    const size_t d = passes[p];
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= shape[k];
    for (size_t k = d + 1; k < rank; ++k) inner *= shape[k];
    uint8_t* dst = out;
    if (p + 1 < passes.size()) {
      std::vector<uint8_t>& buffer = buffers[p % 2];
      buffer.resize(static_cast<size_t>(outer * axes[d].out * inner));
      dst = buffer.data();
    }
    fixed_point_pass(src, dst, outer, axes[d].in, inner, taps[d]);
    shape[d] = axes[d].out;
    src = dst;
  }

  // tf_crop_and_resize: outputs mapped outside the input take the extrapolation value.
  bool any_outside = false;
  for (const FixedPointTaps& t : taps) any_outside = any_outside || t.any_outside;
  if (!any_outside) return;
  const uint8_t fill = static_cast<uint8_t>(options.extrapolation_value);
  Shape coord;
  coord.resize(rank, 0);
  for (int64_t i = 0, n = y.element_count(); i < n; ++i) {
    bool outside = false;
    for (size_t d = 0; d < rank && !outside; ++d) outside = taps[d].outside[coord[d]] != 0;
    if (outside) out[i] = fill;
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

// Nearest resize: a pure gather, exact for every element type.
template <class T>
void resize_nearest(const T* in, T* out, const Shape& in_shape, const Shape& out_shape,
                    std::span<const AxisTaps> taps, const T& fill) {
  const size_t rank = out_shape.size();
  Shape in_strides;
  in_strides.resize(rank);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    in_strides[d] = stride;
    stride *= in_shape[d];
  }
  const int64_t row_len = out_shape[rank - 1];
  const int64_t rows = out_shape.element_count() / row_len;
  const AxisTaps& inner = taps[rank - 1];
  parallel_for(rows, std::max<int64_t>(1, 16384 / row_len), [&](int64_t begin, int64_t end) {
    Shape coord;
    coord.resize(rank - 1, 0);
    int64_t rem = begin;
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
      coord[d] = rem % out_shape[d];
      rem /= out_shape[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      T* dst = out + row * row_len;
      int64_t offset = 0;
      bool outside = false;
      for (size_t d = 0; d + 1 < rank; ++d) {
        const int64_t index = taps[d].index[taps[d].first[coord[d]]];
        if (index < 0) outside = true;
        offset += index * in_strides[d];
      }
      if (outside) {
        std::fill(dst, dst + row_len, fill);
      } else {
        for (int64_t x = 0; x < row_len; ++x) {
          const int64_t index = inner.index[inner.first[x]];
          dst[x] = index < 0 ? fill : in[offset + index];
        }
      }
      for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
        if (++coord[d] < out_shape[d]) break;
        coord[d] = 0;
      }
    }
  });
}

}  // namespace

void resize(const Tensor& x, Tensor& y, std::span<const ResizeAxis> axes,
            const ResizeOptions& options) {
  const Shape& in_shape = x.shape();
  const Shape& out_shape = y.shape();
  check(axes.size() == in_shape.size(), "resize: one axis description per dimension expected");
  if (y.element_count() == 0) return;
  const DataType dtype = x.dtype();
  visit_dtype(dtype, [&]<class T>() {
    constexpr bool numeric = std::is_arithmetic_v<T> || is_small_float_v<T>;
    if constexpr (!numeric) {
      throw Error("Resize does not support element type " + std::string(dtype_name(dtype)));
    } else {
      const T* in = x.data<T>();
      T* out = y.mutable_data<T>();
      if (in_shape.empty()) {
        out[0] = in[0];
        return;
      }
      if constexpr (std::is_same_v<T, uint8_t>) {
        if (options.antialias && options.mode != ResizeMode::Nearest) {
          resize_uint8_antialias(x, y, axes, options);
          return;
        }
      }
      std::vector<AxisTaps> taps(axes.size());
      for (size_t d = 0; d < axes.size(); ++d) compute_axis_taps(axes[d], options, taps[d]);
      if (options.mode == ResizeMode::Nearest) {
        T fill;
        if constexpr (is_small_float_v<T>) {
          fill = T(options.extrapolation_value);
        } else {
          fill = static_cast<T>(options.extrapolation_value);
        }
        resize_nearest<T>(in, out, in_shape, out_shape, taps, fill);
      } else if constexpr (is_small_float_v<T>) {
        // Storage-only floats interpolate through float.
        std::vector<float> in_f(static_cast<size_t>(x.element_count()));
        std::vector<float> out_f(static_cast<size_t>(y.element_count()));
        for (size_t i = 0; i < in_f.size(); ++i) in_f[i] = static_cast<float>(in[i]);
        resize_interpolate<float>(in_f.data(), out_f.data(), in_shape, out_shape, taps,
                                  options.extrapolation_value);
        for (size_t i = 0; i < out_f.size(); ++i) out[i] = T(out_f[i]);
      } else if constexpr (std::is_same_v<T, bool>) {
        throw Error("Resize: linear and cubic modes do not support bool");
      } else {
        resize_interpolate<T>(in, out, in_shape, out_shape, taps, options.extrapolation_value);
      }
    }
  });
}

}  // namespace kiln::cpu
