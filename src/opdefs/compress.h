// Compress(input, condition): the slices of the input (flattened without `axis`) whose entries
// of the 1-D bool condition are true. The condition decides the output's shape, so it is a host
// tensor (indexing_defs.cpp's shape_inputs); its resolution, the picked indices, is shared by the
// CPU kernel and the GPU one.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct CompressAttrs {
  bool has_axis = false;
  int64_t axis = 0;
};
CompressAttrs parse_compress_attrs(const NodeInfo& info);

struct CompressSelection {
  Shape source;                 // the input's shape, or its element count without an axis
  int64_t axis = 0;             // in [0, source rank)
  std::vector<int64_t> picked;  // the selected indices along the axis, ascending
  Shape out;                    // `source` with the axis `picked.size()` long
};

// kiln::Error naming the node for a condition that is not 1-D bool, an axis out of range, or a
// true entry beyond the axis (a shorter condition drops the slices it does not reach; a longer
// one may only add falses).
CompressSelection resolve_compress(const NodeInputs& inputs, const CompressAttrs& attrs);

}  // namespace kiln
