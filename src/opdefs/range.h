// Range(start, limit, delta), defined once for the CPU kernel and the GPU backends: the checks
// on its three scalar inputs and the length of the sequence they give.
#pragma once

#include <cstdint>

#include "kiln/tensor.h"

namespace kiln {

namespace ir {
struct Node;
}

// The number of elements start, start + delta, ... below limit (above it for a negative delta):
// ceil((limit - start) / delta) in double for float types, exact for integer types, 0 when the
// range is empty. kiln::Error naming the node when the inputs differ in type, are not scalars or
// not numeric, delta is zero, or the range is unbounded.
int64_t resolve_range_length(const ir::Node& node, const Tensor& start, const Tensor& limit,
                             const Tensor& delta);

}  // namespace kiln
