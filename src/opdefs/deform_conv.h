// DeformConv (opsets 19, 22), defined once for the CPU kernel and the GPU backends: a 2-D
// convolution whose kernel taps are displaced by learned, per-position offsets (and optionally
// scaled by a mask). Displaced taps land between pixels and read X bilinearly, with zeros outside
// the image. Offsets are (offset_group, kH, kW, [dy, dx]) channels, masks (offset_group, kH, kW).
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct DeformConvAttrs {
  std::vector<int64_t> dilations, kernel_shape, pads, strides;
  int64_t group = 1, offset_group = 1;
};

// kiln::Error naming the node for attributes of the wrong length or out of range.
DeformConvAttrs parse_deform_conv_attrs(const NodeInfo& info);

// The resolved geometry of one run.
struct DeformGeometry {
  int64_t batch, in_c, in_h, in_w, out_c, out_h, out_w, k_h, k_w;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  int64_t group, offset_group;
  int64_t taps() const { return k_h * k_w; }
};

// For X, W, offset and the optional B and mask; kiln::Error naming the node when the shapes do
// not fit each other and the attributes, or the inputs differ in element type.
DeformGeometry resolve_deform_conv(const NodeInputs& inputs, const DeformConvAttrs& attrs);

}  // namespace kiln
