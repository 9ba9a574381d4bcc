// Axes, broadcasting and strides: the shape arithmetic every op definition and every backend
// shares, so that all of them accept the same shapes with the same messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/tensor.h"

namespace kiln {

// Maps a possibly negative axis into [0, rank); kiln::Error (prefixed with `where`) otherwise.
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& where);
// Numpy-style multidirectional broadcasting of two shapes; kiln::Error when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& where);
// Row-major element strides of `shape`.
Shape strides_of(const Shape& shape);
// Strides for reading `shape` as if broadcast to `out` (rank(out) >= rank(shape)): 0 on
// broadcast dimensions, aligned to the right.
Shape broadcast_strides(const Shape& shape, const Shape& out);
// The elements of an integer tensor (int32 or int64, any shape) as int64 values.
std::vector<int64_t> to_int64_vector(const Tensor& t, const std::string& where);

// Calls body(out_index, a_offset, b_offset) for every element of `out`, where the offsets are
// the broadcast positions in the two inputs. Inner-loop friendly: walks the last dimension
// contiguously.
template <class Body>
void for_each_broadcast(const Shape& out, const Shape& a_strides, const Shape& b_strides,
                        Body&& body) {
  const size_t rank = out.size();
  const int64_t total = out.element_count();
  if (total == 0) return;
  if (rank == 0) {
    body(0, 0, 0);
    return;
  }
  Shape index;
  index.resize(rank, 0);
  int64_t a_off = 0, b_off = 0;
  const int64_t inner = out[rank - 1];
  const int64_t a_inner = a_strides[rank - 1], b_inner = b_strides[rank - 1];
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t i = 0; i < inner; ++i) body(o + i, a_off + i * a_inner, b_off + i * b_inner);
    // Advance the outer index (odometer) and the input offsets with it.
    for (size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      a_off += a_strides[d];
      b_off += b_strides[d];
      if (index[d] < out[d]) break;
      a_off -= a_strides[d] * out[d];
      b_off -= b_strides[d] * out[d];
      index[d] = 0;
    }
  }
}

}  // namespace kiln
