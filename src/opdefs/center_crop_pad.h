// CenterCropPad's attributes and its resolution per run, shared by the CPU kernel and the GPU
// ones: which axes change, and how much each loses (crop) or gains (zero padding) at its start
// and end. The content stays centred; an odd difference crops or pads the extra element at the
// end.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct CenterCropPadAttrs {
  bool has_axes = false;      // without the attribute, every axis is listed
  std::vector<int64_t> axes;  // as given (negative from the back)
};

CenterCropPadAttrs parse_center_crop_pad_attrs(const NodeInfo& info);

// One run: the output shape and, per axis, ONNX Pad's pads [begin_0 .. begin_{r-1}, end_0 ..
// end_{r-1}]: negative values crop, positive ones add zeros.
struct CenterCropPadPlan {
  Shape out;
  std::vector<int64_t> pads;
};

// For input 0's shape and the host-held target sizes (input 1, int32 or int64); kiln::Error
// naming the node for axes out of range or repeated, a size count that differs from the axes',
// negative sizes or an output shape too large to exist.
CenterCropPadPlan resolve_center_crop_pad(const NodeInputs& inputs,
                                          const CenterCropPadAttrs& attrs);

}  // namespace kiln
