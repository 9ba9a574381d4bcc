// Type-agnostic element movement for the data-movement ops (Transpose, Slice, Concat, Split,
// DepthToSpace, Gather, Expand, Tile, Pad, ...): they never look at values, only move elements,
// so they work on raw bytes by element size; String tensors hold std::string objects and are
// copied by assignment.
//
// The main entry point copies an N-D region between two strided layouts:
//
//   // out = transpose(in, perm): read `in` with permuted strides, write contiguously.
//   Shape in_strides = strides_of(in.shape()), src_strides, out_shape;
//   for (size_t d = 0; d < perm.size(); ++d) {
//     out_shape.push_back(in.shape()[perm[d]]);
//     src_strides.push_back(in_strides[perm[d]]);
//   }
//   cpu::strided_copy(in.dtype(), out_shape, out.mutable_raw_data(), strides_of(out_shape),
//                     in.raw_data(), src_strides);
//
// Strides are in elements, not bytes; both pointers point at the element of index (0, ..., 0)
// of the region. Source strides may be zero (broadcast reads, e.g. Expand) or negative
// (reversed reads, e.g. Slice with negative steps); destination strides must not make two
// indices write the same element. Size-1 dimensions are dropped and dimensions contiguous in
// both layouts are merged first, so the innermost contiguous run is moved with one memcpy;
// a dimension read with stride 1 but written with another stride (2-D transposes, NCHW <-> NHWC)
// is moved in cache-sized tiles. Large copies are split over the CPU job system's workers.
// The copy does not allocate for ranks up to Shape::kInlineRank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/function_ref.h"
#include "kiln/dtype.h"
#include "kiln/error.h"
#include "kiln/shape.h"

namespace kiln::cpu {

// dst[sum_d i_d * dst_strides[d]] = src[sum_d i_d * src_strides[d]] for every index i < shape.
// dst_strides and src_strides have the rank of `shape`. Does nothing when shape has a zero dim;
// copies one element for rank 0.
void strided_copy(DataType dtype, const Shape& shape, void* dst, const Shape& dst_strides,
                  const void* src, const Shape& src_strides);

// strided_copy into a contiguous (row-major) destination of shape `shape`.
void strided_copy_to_contiguous(DataType dtype, const Shape& shape, void* dst, const void* src,
                                const Shape& src_strides);

// Copies `count` contiguous elements (non-overlapping ranges).
void copy_elements(DataType dtype, void* dst, const void* src, int64_t count);

// Runs body(begin, end) over disjoint ranges covering [0, units): on the calling thread when
// the work is small (units * bytes_per_unit under a few hundred KiB), otherwise split over the
// job system's workers in ranges of at least ~64 KiB. For copy loops whose units are
// independent (rows of a gather, tiles of a transpose).
void for_each_chunk(int64_t units, int64_t bytes_per_unit,
                    FunctionRef<void(int64_t, int64_t)> body);

// --- Element movers, for kernels that move elements one by one in their own loops -----------
//
//   cpu::visit_element_mover(t.dtype(), [&]<class M>() {
//     M::copy(out_bytes + o * M::size, in_bytes + i * M::size);
//   });
//
// M::size is the element size in bytes; M::copy moves one element, M::copy_n `n` contiguous
// ones, between byte addresses. For plain types the copy is a fixed-size memcpy (one load and
// store after optimisation, without type-punning the data); for String it assigns.
template <size_t N>
struct BytesMover {
  static constexpr size_t size = N;
  static void copy(std::byte* dst, const std::byte* src) { std::memcpy(dst, src, N); }
  static void copy_n(std::byte* dst, const std::byte* src, int64_t n) {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * N);
  }
};

struct StringMover {
  static constexpr size_t size = sizeof(std::string);
  static void copy(std::byte* dst, const std::byte* src) {
    *reinterpret_cast<std::string*>(dst) = *reinterpret_cast<const std::string*>(src);
  }
  static void copy_n(std::byte* dst, const std::byte* src, int64_t n) {
    auto* d = reinterpret_cast<std::string*>(dst);
    const auto* s = reinterpret_cast<const std::string*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  }
};

// Calls f.template operator()<M>() with the mover for `dtype`; kiln::Error for Undefined.
template <class F>
decltype(auto) visit_element_mover(DataType dtype, F&& f) {
  if (dtype == DataType::String) return f.template operator()<StringMover>();
  switch (dtype_size(dtype)) {
    case 1:
      return f.template operator()<BytesMover<1>>();
    case 2:
      return f.template operator()<BytesMover<2>>();
    case 4:
      return f.template operator()<BytesMover<4>>();
    case 8:
      return f.template operator()<BytesMover<8>>();
    case 16:
      return f.template operator()<BytesMover<16>>();
    default:
      break;
  }
  throw Error("no element mover for element type " + std::string(dtype_name(dtype)));
}

}  // namespace kiln::cpu
