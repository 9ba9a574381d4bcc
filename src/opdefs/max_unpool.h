// MaxUnpool (opsets 9, 11, 22), defined once for the CPU kernel and the GPU backends: its
// window attributes and the shapes of a run. Each value of X goes to the output position its
// index (as MaxPool's Indices output gives it: flat over the shape MaxPool saw) names; every
// other output element is zero.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct MaxUnpoolAttrs {
  std::vector<int64_t> kernel_shape, pads, strides;
};

// kiln::Error naming the node for a missing kernel_shape or values outside [0, 2^31] (beyond
// that they are corrupt; bounding them keeps the shape arithmetic exact).
MaxUnpoolAttrs parse_max_unpool_attrs(const NodeInfo& info);

struct MaxUnpoolShapes {
  // The shape MaxPool was run on, (in - 1) * stride + kernel - pads per spatial axis: the indices
  // address it.
  Shape unpooled;
  // The output: output_shape when given (which recovers sizes the pooling's rounding lost, and
  // holds `unpooled` in its leading corner), else `unpooled`.
  Shape output;
};

// For X, I and the optional output_shape (a host value); kiln::Error naming the node when X is
// not (N, C, D1, ...), I is not int64 of X's shape, the attributes do not fit X's rank, a size
// overflows or is negative, or output_shape has another rank or is smaller than the unpooled
// shape.
MaxUnpoolShapes resolve_max_unpool(const NodeInputs& inputs, const MaxUnpoolAttrs& attrs);

}  // namespace kiln
