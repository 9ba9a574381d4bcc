// Conv and ConvTranspose attributes, and their resolution against the operands' shapes into
// the problem the kernels run: shared by the CPU op and the GPU backends, so every backend
// accepts and rejects exactly the same nodes with the same messages.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/tensor.h"
#include "opdefs/window.h"

namespace kiln {

class NodeInfo;

struct ConvProblem {
  // Conv: image = the input X, window positions = the output Y.
  // ConvTranspose: image = the output Y, window positions = the input X.
  WindowGeometry geometry;
  int64_t batch = 1;
  int64_t in_channels = 0;   // channels of X
  int64_t out_channels = 0;  // channels of Y
  int64_t group = 1;
};

struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
  std::vector<int64_t> output_padding;  // ConvTranspose only
  std::vector<int64_t> output_shape;    // ConvTranspose only
};

ConvAttrs parse_conv_attrs(const NodeInfo& info, bool transpose);

// Checks X, W and B (shapes and dtypes only: device tensors are fine) and resolves auto_pad,
// pads, strides and dilations; kiln::Error naming `node` for operands the op rejects.
ConvProblem resolve_conv(const ir::Node& node, const ConvAttrs& attrs, const Tensor& x,
                         const Tensor& w, const Tensor* b);
// ConvTranspose: output_padding and output_shape too; geometry.in is the output's spatial shape.
// ConvTranspose's geometry for X's spatial shape `in` and the kernel: each output axis depends on
// its own input axis only (so shape inference may resolve a symbolic axis with a stand-in).
WindowGeometry conv_transpose_geometry(const ir::Node& node, const ConvAttrs& attrs,
                                       const Shape& in, const Shape& kernel);
ConvProblem resolve_conv_transpose(const ir::Node& node, const ConvAttrs& attrs, const Tensor& x,
                                   const Tensor& w, const Tensor* b);

}  // namespace kiln
