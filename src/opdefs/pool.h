// The pooling ops' attributes (MaxPool, AveragePool, LpPool), shared by the CPU kernel and the GPU
// ones; their windows are opdefs/window.h's. MaxPool's optional Indices output (int64, opset 8
// on) holds, per output element, the flat index into X of the window's maximum: the plane's
// offset (plane * the plane's elements) plus the tap's spatial offset, row-major, or column-major
// with storage_order 1; the first of equal maxima wins, and a window with no tap inside the image
// gives -1.
#pragma once

#include "opdefs/window.h"

namespace kiln {

class NodeInfo;

struct PoolAttrs {
  PoolOp kind = PoolOp::Max;
  WindowAttrs window;
  bool count_include_pad = false;  // AveragePool
  bool column_major = false;       // MaxPool's storage_order 1, for its Indices
  float p = 2.0f;                  // LpPool's exponent
};

// kiln::Error naming the node for bad window attributes, a missing kernel_shape, a
// storage_order other than 0 or 1, p <= 0 for LpPool, or MaxPool's Indices before opset 8.
PoolAttrs parse_pool_attrs(const NodeInfo& info, PoolOp kind);

}  // namespace kiln
