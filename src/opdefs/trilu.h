// Trilu's rule, defined once for the CPU kernel and the GPU backends: of each matrix (the last
// two axes) it keeps the upper triangle (the `upper` attribute, 1 by default: the elements with
// column - row >= k) or the lower one (column - row <= k), and zeroes the rest. k, the diagonal
// offset, is the optional scalar input 1 (0 when absent), a host value.
#pragma once

#include <cstdint>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct TriluAttrs {
  bool upper = true;
};
TriluAttrs parse_trilu_attrs(const NodeInfo& info);

// One run's matrices and diagonal offset.
struct TriluPlan {
  int64_t rows = 0, cols = 0;  // the last two axes of the input
  // k clamped to [-rows - 1, cols + 1]: beyond those bounds every element of a matrix is kept
  // (or every one zeroed) already, so the clamp changes no result and keeps row + k, column - k
  // and the like within 32 bits for kernels that index in int.
  int64_t k = 0;
};
// kiln::Error naming the node for an input of rank below 2 or a k that is not one int32 or int64
// value.
TriluPlan resolve_trilu(const NodeInputs& inputs);

// Row `row` keeps the columns [split, cols) (upper) or [0, split) (lower).
inline int64_t trilu_split(bool upper, const TriluPlan& p, int64_t row) {
  const int64_t split = upper ? row + p.k : row + p.k + 1;
  return split < 0 ? 0 : split > p.cols ? p.cols : split;
}

}  // namespace kiln
