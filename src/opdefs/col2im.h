// Col2Im's attributes and its geometry per run, shared by the CPU kernel and the GPU ones: the
// image and block shapes (host values), dilations, pads and strides per spatial axis, and how
// many sliding blocks fit along each.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct Col2ImAttrs {
  std::vector<int64_t> dilations, pads, strides;  // empty: the defaults (1, 0, 1)
};

Col2ImAttrs parse_col2im_attrs(const NodeInfo& info);

// The geometry of one run, per spatial axis.
struct Col2ImGeometry {
  Shape image, block, dilation, pad_begin, stride, positions;  // positions: blocks along axis
  int64_t block_size = 1, image_size = 1, columns = 1;
  int64_t planes = 0;  // batch * channels, each folded on its own
  Shape out_shape;     // [N, C, image...]
};

// For the input [N, C * block_size, columns] and the host-held image_shape and block_shape
// (inputs 1 and 2); kiln::Error naming the node for inputs the op rejects.
Col2ImGeometry resolve_col2im(const NodeInputs& inputs, const Col2ImAttrs& attrs);

}  // namespace kiln
