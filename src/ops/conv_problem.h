// Conv and ConvTranspose attributes, and their resolution against the operands' shapes into
// the problem the kernels run: shared by the CPU op and the GPU backends, so every backend
// accepts and rejects exactly the same nodes with the same messages.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/conv_f32.h"
#include "opdefs/window.h"
#include "ops/op_context.h"

namespace kiln {

class NodeInfo;

struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
  std::vector<int64_t> output_padding;  // ConvTranspose only
  std::vector<int64_t> output_shape;    // ConvTranspose only
};

ConvAttrs parse_conv_attrs(const NodeInfo& info, bool transpose);

// Checks X, W and B (shapes and dtypes only: device tensors are fine) and resolves auto_pad,
// pads, strides and dilations; errors through ctx.fail.
cpu::ConvProblem resolve_conv(const OpContext& ctx, const ConvAttrs& attrs, const Tensor& x,
                              const Tensor& w, const Tensor* b);
// ConvTranspose: output_padding and output_shape too; geometry.in is the output's spatial shape.
cpu::ConvProblem resolve_conv_transpose(const OpContext& ctx, const ConvAttrs& attrs,
                                        const Tensor& x, const Tensor& w, const Tensor* b);

}  // namespace kiln
