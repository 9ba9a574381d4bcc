// CumSum and CumProd's attributes, parsed once for the CPU kernel and the GPU backends: whether
// each output element leaves out its own input (exclusive) and whether the running total goes
// from the end of the axis (reverse).
#pragma once

namespace kiln {

class NodeInfo;

struct CumulativeAttrs {
  bool exclusive = false;
  bool reverse = false;
};

CumulativeAttrs parse_cumulative_attrs(const NodeInfo& info);

}  // namespace kiln
