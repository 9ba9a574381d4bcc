// Pooling over N-D windows of NC... planes (MaxPool, AveragePool, LpPool and their Global
// forms). Element types are templates: float-like types compute in float (double in double),
// integer types compare exactly.
#pragma once

#include <cstdint>

#include "opdefs/window.h"

namespace kiln::cpu {

// y = max over each window; `indices` (may be null) receives the flat input index of the
// maximum, counting planes, with the spatial offset in row-major order or, when
// `column_major`, in column-major order.
template <class T>
void max_pool(const PoolShape& s, const T* x, T* y, int64_t* indices, bool column_major);

// y = mean over each window, dividing by the taps inside the image, or with
// `count_include_pad` by the taps inside the padded image.
template <class T>
void average_pool(const PoolShape& s, const T* x, T* y, bool count_include_pad);

// y = (sum over each window of |x|^p)^(1/p).
template <class T>
void lp_pool(const PoolShape& s, const T* x, T* y, float p);

// Reductions over whole planes of `plane_size` elements (GlobalMaxPool etc.).
template <class T>
void global_max_pool(int64_t planes, int64_t plane_size, const T* x, T* y);
template <class T>
void global_average_pool(int64_t planes, int64_t plane_size, const T* x, T* y);
template <class T>
void global_lp_pool(int64_t planes, int64_t plane_size, const T* x, T* y, float p);

}  // namespace kiln::cpu
