// LRN's attributes, parsed once for the CPU kernel and the GPU backends: the window of `size`
// channels around each channel, and the scale alpha / size, exponent beta and bias of
// y = x * (bias + alpha / size * sum of squares over the window)^-beta.
#pragma once

#include <cstdint>

namespace kiln {

class NodeInfo;

struct LrnAttrs {
  int64_t size = 1;
  double alpha = 1e-4, beta = 0.75, bias = 1.0;
  // The window around channel c is [c - before, c + after]: before = floor((size - 1) / 2),
  // after = ceil((size - 1) / 2).
  int64_t before = 0, after = 0;
};

// kiln::Error (naming the node) when size is missing or not positive.
LrnAttrs parse_lrn_attrs(const NodeInfo& info);

}  // namespace kiln
