// The loop behind every two-operand element-wise kernel (Add ... Equal, Min/Max/Sum/Mean):
// out = f(a, b) with numpy-style multidirectional broadcasting.
//
// The output is walked as rows whose operands are each either contiguous or one repeated
// value, which covers the patterns models use (same shape, scalar operand, bias [C] against
// [N, C], per-channel [C, 1, 1] against [N, C, H, W]) with inner loops the compiler vectorises.
// Dimensions that both operands traverse contiguously are merged first, so e.g. a
// [N, C, H, W] + [1, C, 1, 1] becomes rows of H*W elements, each against one bias value.
// No heap allocation for ranks up to Shape's inline capacity.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/thread_pool.h"
#include "kiln/shape.h"

namespace kiln::cpu {

// Elements per parallel task: below this the work is not worth the hand-off.
inline constexpr int64_t kBinaryGrain = 32768;

namespace detail {

// Inner loop for one row of `n` outputs; each operand steps by 1 (contiguous) or 0 (repeated).
template <class A, class B, class O, class F>
inline void binary_row(const A* a, bool a_step, const B* b, bool b_step, O* out, int64_t n,
                       const F& f) {
  if (a_step && b_step) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (a_step) {
    const B bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (b_step) {
    const A av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    const O v = f(*a, *b);
    std::fill(out, out + n, v);
  }
}

}  // namespace detail

// out[i] = f(a[ia], b[ib]) for every element of `out_shape`, where a and b are read as if
// broadcast to out_shape (each must be broadcast-compatible with it; the caller checks).
// `out` may alias `a` or `b` when that operand has the output's full shape.
// f must be safe to call concurrently.
template <class A, class B, class O, class F>
void binary_broadcast(const A* a, const Shape& a_shape, const B* b, const Shape& b_shape, O* out,
                      const Shape& out_shape, const F& f, int64_t grain = kBinaryGrain) {
  const int64_t total = out_shape.element_count();
  if (total == 0) return;
  const int64_t a_count = a_shape.element_count();
  const int64_t b_count = b_shape.element_count();

  // Flat cases: same element layout, or a single repeated operand.
  if ((a_count == total || a_count == 1) && (b_count == total || b_count == 1)) {
    const bool a_step = a_count == total && total != 1;
    const bool b_step = b_count == total && total != 1;
    // Broadcast compatibility makes an operand with the output's element count have the
    // output's layout (its other dimensions are all 1).
    auto body = [&](int64_t begin, int64_t end) {
      detail::binary_row(a + (a_step ? begin : 0), a_step, b + (b_step ? begin : 0), b_step,
                         out + begin, end - begin, f);
    };
    if (total <= grain) {
      body(0, total);
    } else {
      parallel_for(total, grain, body);
    }
    return;
  }

  // General case: broadcast strides, then drop size-1 dimensions and merge neighbours that
  // both operands walk contiguously (or both repeat).
  const size_t rank = out_shape.size();
  Shape dims, sa, sb;
  {
    Shape full_a, full_b;
    full_a.resize(rank, 0);
    full_b.resize(rank, 0);
    int64_t stride = 1;
    for (size_t i = a_shape.size(); i-- > 0;) {
      full_a[i + rank - a_shape.size()] = a_shape[i] == 1 ? 0 : stride;
      stride *= a_shape[i];
    }
    stride = 1;
    for (size_t i = b_shape.size(); i-- > 0;) {
      full_b[i + rank - b_shape.size()] = b_shape[i] == 1 ? 0 : stride;
      stride *= b_shape[i];
    }
    for (size_t d = 0; d < rank; ++d) {
      if (out_shape[d] == 1) continue;
      if (!dims.empty() && sa.back() == full_a[d] * out_shape[d] &&
          sb.back() == full_b[d] * out_shape[d]) {
        dims.back() *= out_shape[d];
        sa.back() = full_a[d];
        sb.back() = full_b[d];
      } else {
        dims.push_back(out_shape[d]);
        sa.push_back(full_a[d]);
        sb.push_back(full_b[d]);
      }
    }
  }
  const size_t r = dims.size();  // >= 1: the flat cases handled total == 1
  const int64_t inner = dims[r - 1];
  const bool a_step = sa[r - 1] != 0, b_step = sb[r - 1] != 0;
  const int64_t rows = total / inner;

  auto body = [&](int64_t row_begin, int64_t row_end) {
    // Position of row_begin in the outer dimensions, and the operand offsets there.
    Shape index;
    index.resize(r, 0);
    int64_t a_off = 0, b_off = 0, rem = row_begin;
    for (size_t d = r - 1; d-- > 0;) {
      index[d] = rem % dims[d];
      rem /= dims[d];
      a_off += index[d] * sa[d];
      b_off += index[d] * sb[d];
    }
    for (int64_t row = row_begin; row < row_end; ++row) {
      detail::binary_row(a + a_off, a_step, b + b_off, b_step, out + row * inner, inner, f);
      for (size_t d = r - 1; d-- > 0;) {
        a_off += sa[d];
        b_off += sb[d];
        if (++index[d] < dims[d]) break;
        a_off -= sa[d] * dims[d];
        b_off -= sb[d] * dims[d];
        index[d] = 0;
      }
    }
  };
  const int64_t row_grain = std::max<int64_t>(1, grain / inner);
  if (rows <= row_grain) {
    body(0, rows);
  } else {
    parallel_for(rows, row_grain, body);
  }
}

}  // namespace kiln::cpu
