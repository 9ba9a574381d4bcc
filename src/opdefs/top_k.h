// TopK's attributes, parsed once for the CPU kernel and the GPU backends: the axis, whether the
// largest or the smallest values are wanted, whether they come sorted, and (before opset 10,
// where K is no input yet) k itself.
#pragma once

#include <cstdint>

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

}  // namespace kiln
