#include "backends/cpu/strided_copy.h"

#include <algorithm>

#include "core/thread_pool.h"

namespace kiln::cpu {

namespace {

// Below this many bytes a copy runs on the calling thread: handing out work costs more.
constexpr int64_t kParallelBytes = int64_t{1} << 18;
// Bytes each parallel task moves at least.
constexpr int64_t kTaskBytes = int64_t{1} << 16;
// Side of the square tiles of the transposing path, in elements: 64 measured best for
// float32 transposes of large power-of-two matrices and of NCHW <-> NHWC images.
constexpr int64_t kTile = 64;

// The copy after dropping size-1 dimensions and merging dimensions that are contiguous in both
// layouts: fewer, longer loops, and the longest possible innermost run.
struct Layout {
  Shape shape, dst, src;
};

Layout simplify(const Shape& shape, const Shape& dst, const Shape& src) {
  Layout l;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!l.shape.empty() && l.src.back() == src[d] * shape[d] &&
        l.dst.back() == dst[d] * shape[d]) {
      l.shape.back() *= shape[d];
      l.src.back() = src[d];
      l.dst.back() = dst[d];
      continue;
    }
    l.shape.push_back(shape[d]);
    l.src.push_back(src[d]);
    l.dst.push_back(dst[d]);
  }
  return l;
}

// Walks the indices of `shape` in row-major order, keeping the matching source and destination
// offsets (in elements).
struct Odometer {
  const Shape& shape;
  const Shape& dst_strides;
  const Shape& src_strides;
  Shape index;
  int64_t dst = 0, src = 0;

  Odometer(const Shape& s, const Shape& ds, const Shape& ss, int64_t linear)
      : shape(s), dst_strides(ds), src_strides(ss) {
    index.resize(s.size(), 0);
    for (size_t d = s.size(); d-- > 0;) {
      index[d] = linear % s[d];
      linear /= s[d];
      dst += index[d] * ds[d];
      src += index[d] * ss[d];
    }
  }
  void next() {
    for (size_t d = shape.size(); d-- > 0;) {
      ++index[d];
      dst += dst_strides[d];
      src += src_strides[d];
      if (index[d] < shape[d]) return;
      dst -= dst_strides[d] * shape[d];
      src -= src_strides[d] * shape[d];
      index[d] = 0;
    }
  }
};

template <class Body>
void maybe_parallel(int64_t units, int64_t bytes_per_unit, Body&& body) {
  if (units <= 1 || units * bytes_per_unit < kParallelBytes) {
    body(0, units);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kTaskBytes / std::max<int64_t>(1, bytes_per_unit));
  parallel_for(units, grain, body);
}

// Rows of the innermost dimension, one after another.
template <class M>
void copy_rows(const Layout& l, std::byte* dst, const std::byte* src) {
  const size_t r = l.shape.size();
  const int64_t inner = l.shape[r - 1];
  const int64_t di = l.dst[r - 1], si = l.src[r - 1];
  Shape outer(l.shape.begin(), l.shape.end() - 1);
  Shape outer_dst(l.dst.begin(), l.dst.end() - 1);
  Shape outer_src(l.src.begin(), l.src.end() - 1);
  const int64_t rows = outer.element_count();
  const bool contiguous = di == 1 && si == 1;
  maybe_parallel(rows, inner * static_cast<int64_t>(M::size), [&](int64_t begin, int64_t end) {
    Odometer o(outer, outer_dst, outer_src, begin);
    for (int64_t row = begin; row < end; ++row, o.next()) {
      std::byte* d = dst + o.dst * static_cast<int64_t>(M::size);
      const std::byte* s = src + o.src * static_cast<int64_t>(M::size);
      if (contiguous) {
        M::copy_n(d, s, inner);
      } else {
        const int64_t dstep = di * static_cast<int64_t>(M::size);
        const int64_t sstep = si * static_cast<int64_t>(M::size);
        for (int64_t k = 0; k < inner; ++k) M::copy(d + k * dstep, s + k * sstep);
      }
    }
  });
}

// Dimension j is read contiguously and the innermost one written contiguously: a batch of
// 2-D transposes. Element-by-element copying would miss the cache on every read (or write) of
// a large matrix, so both are walked in square tiles that stay in L1.
template <class M>
void copy_transposed(const Layout& l, size_t j, std::byte* dst, const std::byte* src) {
  const size_t r = l.shape.size();
  const int64_t rows_j = l.shape[j], cols = l.shape[r - 1];
  const int64_t dj = l.dst[j], sk = l.src[r - 1];
  Shape outer, outer_dst, outer_src;
  for (size_t d = 0; d + 1 < r; ++d) {
    if (d == j) continue;
    outer.push_back(l.shape[d]);
    outer_dst.push_back(l.dst[d]);
    outer_src.push_back(l.src[d]);
  }
  const int64_t j_tiles = (rows_j + kTile - 1) / kTile;
  const int64_t units = outer.element_count() * j_tiles;
  const auto size = static_cast<int64_t>(M::size);
  maybe_parallel(units, kTile * cols * size, [&](int64_t begin, int64_t end) {
    Odometer o(outer, outer_dst, outer_src, begin / j_tiles);
    int64_t tile = begin % j_tiles;
    for (int64_t u = begin; u < end; ++u) {
      const int64_t j0 = tile * kTile, j1 = std::min(rows_j, j0 + kTile);
      for (int64_t k0 = 0; k0 < cols; k0 += kTile) {
        const int64_t k1 = std::min(cols, k0 + kTile);
        if constexpr (M::size <= 8) {  // buffer of at most 32 KiB
          // Through a buffer in L1: read runs contiguous in the source, then write runs
          // contiguous in the destination. Walking either side with its large stride directly
          // would, for power-of-two strides, map every line of the tile to the same cache set.
          alignas(64) std::byte buf[kTile * kTile * M::size];
          for (int64_t k = k0; k < k1; ++k) {
            M::copy_n(buf + (k - k0) * kTile * size, src + (o.src + k * sk + j0) * size, j1 - j0);
          }
          for (int64_t jj = j0; jj < j1; ++jj) {
            std::byte* d = dst + (o.dst + jj * dj + k0) * size;
            const std::byte* b = buf + (jj - j0) * size;
            for (int64_t k = 0; k < k1 - k0; ++k) M::copy(d + k * size, b + k * kTile * size);
          }
        } else {
          for (int64_t jj = j0; jj < j1; ++jj) {
            std::byte* d = dst + (o.dst + jj * dj) * size;
            const std::byte* s = src + (o.src + jj) * size;
            for (int64_t k = k0; k < k1; ++k) M::copy(d + k * size, s + k * sk * size);
          }
        }
      }
      if (++tile == j_tiles) {
        tile = 0;
        o.next();
      }
    }
  });
}

}  // namespace

void strided_copy(DataType dtype, const Shape& shape, void* dst, const Shape& dst_strides,
                  const void* src, const Shape& src_strides) {
  // Not check(): its message would be built (and allocated) on every call.
  if (dst_strides.size() != shape.size() || src_strides.size() != shape.size()) {
    throw Error("strided_copy: strides must have the rank of the shape " + shape.to_string());
  }
  if (shape.element_count() == 0) return;
  const Layout l = simplify(shape, dst_strides, src_strides);
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  visit_element_mover(dtype, [&]<class M>() {
    const size_t r = l.shape.size();
    if (r == 0) {
      M::copy(d, s);
      return;
    }
    if (l.dst[r - 1] == 1 && l.src[r - 1] != 1 && l.shape[r - 1] >= 4) {
      for (size_t j = r - 1; j-- > 0;) {
        if (l.src[j] == 1 && l.shape[j] >= 4) {
          copy_transposed<M>(l, j, d, s);
          return;
        }
      }
    }
    copy_rows<M>(l, d, s);
  });
}

void strided_copy_to_contiguous(DataType dtype, const Shape& shape, void* dst, const void* src,
                                const Shape& src_strides) {
  Shape dst_strides;
  dst_strides.resize(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    dst_strides[d] = stride;
    stride *= shape[d];
  }
  strided_copy(dtype, shape, dst, dst_strides, src, src_strides);
}

void copy_elements(DataType dtype, void* dst, const void* src, int64_t count) {
  if (count <= 0) return;
  visit_element_mover(dtype, [&]<class M>() {
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    const auto size = static_cast<int64_t>(M::size);
    maybe_parallel(count, size, [&](int64_t begin, int64_t end) {
      M::copy_n(d + begin * size, s + begin * size, end - begin);
    });
  });
}

void for_each_chunk(int64_t units, int64_t bytes_per_unit,
                    FunctionRef<void(int64_t, int64_t)> body) {
  maybe_parallel(units, bytes_per_unit, body);
}

}  // namespace kiln::cpu
