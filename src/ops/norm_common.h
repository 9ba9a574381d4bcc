// Helpers shared by the normalization family (normalization.cpp, layer_normalization.cpp,
// local_response_norm.cpp): the compute type per element type, conversions, row statistics and
// per-run scratch.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/norm_kernels.h"
#include "core/dtype_dispatch.h"
#include "kiln/tensor.h"
#include "ops/op_utils.h"

namespace kiln {

class OpRegistry;
class OpContext;

namespace norm {

// Float16/BFloat16 and float compute in float; double stays double.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The float types the normalization ops accept for their data input.
inline bool is_norm_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

template <class C, class T>
inline C load(T v) {
  if constexpr (is_small_float_v<T>) {
    return static_cast<C>(static_cast<float>(v));
  } else {
    return static_cast<C>(v);
  }
}

template <class T, class C>
inline T store(C v) {
  if constexpr (is_small_float_v<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Scratch that lives as long as its thread and only ever grows, so steady-state runs do not
// allocate. Each use site passes its own tag type so that two live buffers never share storage.
template <class C, class Tag>
C* scratch(size_t count) {
  thread_local std::vector<C> buffer;
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

// Copies a tensor of one of the is_norm_dtype types into `out` as C values (callers check the
// dtype first, so that the error names the node).
template <class C>
void convert_to(const Tensor& t, C* out);

// Mean and population variance of a contiguous row, two passes (accurate for rows with a large
// mean). With rms = true, mean is 0 and var is the mean of squares.
template <class T>
void row_moments(const T* x, int64_t n, bool rms, double& mean, double& var) {
  if (n <= 0) {
    mean = var = 0.0;
    return;
  }
  const double inv_n = 1.0 / static_cast<double>(n);
  if constexpr (std::is_same_v<T, float>) {
    if (rms) {
      mean = 0.0;
      var = cpu::sum_squares_f32(x, n) * inv_n;
    } else {
      mean = cpu::sum_f32(x, n) * inv_n;
      var = cpu::sum_squared_deviations_f32(x, n, static_cast<float>(mean)) * inv_n;
    }
  } else {
    double sum = 0.0;
    if (!rms) {
      for (int64_t i = 0; i < n; ++i) sum += load<double>(x[i]);
    }
    mean = sum * inv_n;
    double sq = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = load<double>(x[i]) - mean;
      sq += d * d;
    }
    var = sq * inv_n;
  }
}

// y[i] = x[i] * a + b over a contiguous run, converting through the compute type.
template <class T, class C>
void scale_shift(const T* x, T* y, int64_t n, C a, C b) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::scale_shift_f32(x, y, n, a, b);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = store<T>(load<C>(x[i]) * a + b);
  }
}

// A parallel grain that gives each task roughly this many elements of work.
inline int64_t rows_grain(int64_t row_length) {
  constexpr int64_t kWorkPerTask = 16384;
  return std::max<int64_t>(1, kWorkPerTask / std::max<int64_t>(1, row_length));
}

// Expands a tensor unidirectionally broadcast to `target` (its trailing dims aligned with
// target's; leading 1s beyond target's rank allowed) into `out` as C values. Returns false when
// the shapes are not compatible.
bool broadcastable_to(const Shape& shape, const Shape& target);
template <class C>
void expand_to(const Tensor& t, const Shape& target, C* out);

}  // namespace norm
}  // namespace kiln
