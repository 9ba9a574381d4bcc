// TopK's attributes, parsed once for the CPU kernel and the GPU backends: the axis, whether the
// largest or the smallest values are wanted, whether they come sorted, and (before opset 10,
// where K is no input yet) k itself.
#pragma once

#include <cstdint>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct TopKAttrs {
  int64_t axis = -1;
  bool largest = true;
  bool sorted = true;
  bool k_is_input = true;  // from opset 10; before, `k` holds the attribute
  int64_t k = 0;
};

// kiln::Error (naming the node) when a node before opset 10 lacks its k attribute.
TopKAttrs parse_top_k_attrs(const NodeInfo& info);

// One run's axis (non-negative) and k: the attribute before opset 10, else input 1, a host-held
// 1-D (or scalar) int32 or int64 tensor of one value. kiln::Error naming the node for a scalar X,
// an axis outside it, a K of another shape or type, or a k outside [0, the axis' length].
struct TopKPlan {
  int64_t axis = 0;
  int64_t k = 0;
};
TopKPlan resolve_top_k(const NodeInputs& inputs, const TopKAttrs& attrs);

}  // namespace kiln
