// Unique(X): the distinct slices of X along `axis` (of its elements, X flattened, without one),
// sorted by value or in order of first occurrence, with their first indices, the inverse indices
// and the counts. Its attributes and the layout it compares in are shared by the CPU kernel and
// the GPU one; the ordering itself (numbers by value, every NaN equal to every other and after
// all numbers, as numpy.unique) is each kernel's.
#pragma once

#include <cstdint>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct UniqueAttrs {
  bool has_axis = false;
  int64_t axis = 0;
  bool sorted = true;
};
UniqueAttrs parse_unique_attrs(const NodeInfo& info);

// X seen as [outer, extent, inner] around the axis: `extent` slices of outer * inner elements.
struct UniqueLayout {
  Shape source;  // X's shape, or its element count without an axis
  int64_t axis = 0;
  int64_t outer = 1, extent = 1, inner = 1;
};

// kiln::Error naming the node for an axis out of range or a complex X (which has no order).
UniqueLayout resolve_unique(const NodeInputs& inputs, const UniqueAttrs& attrs);

}  // namespace kiln
