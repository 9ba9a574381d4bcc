// ConvInteger and QLinearConv resolved for one run: the operands checked against each other and
// the attributes, the zero points, and QLinearConv's requantization, shared by the CPU kernel
// (src/ops/conv_integer.cpp) and the GPU one so both accept and reject the same nodes:
//
//   ConvInteger  y = conv(x - x_zero_point, w - w_zero_point)                       (int32)
//   QLinearConv  y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) * multiplier) + y_zp)
//
// with multiplier = x_scale * w_scale / y_scale rounded to float32 at each step, per tensor or
// per output channel. Zero points and scales are read from host tensors; x, w and B only for
// their shapes and dtypes (device tensors are fine).
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/dtype.h"
#include "kiln/shape.h"
#include "opdefs/conv.h"
#include "opdefs/node_inputs.h"

namespace kiln {

// The conv loop nests keep per-axis state in fixed arrays.
inline constexpr size_t kIntConvMaxSpatialRank = 12;

enum QLinearConvInput : size_t {
  kQConvX,
  kQConvXScale,
  kQConvXZero,
  kQConvW,
  kQConvWScale,
  kQConvWZero,
  kQConvYScale,
  kQConvYZero,
  kQConvBias
};

struct IntConvParams {
  ConvProblem problem;
  Shape y_shape;
  int32_t x_zero = 0;
  std::vector<int32_t> w_zero = {0};  // one value, or one per output channel
  DataType out_type = DataType::Int32;
  // QLinearConv only.
  int32_t y_zero = 0;
  std::vector<double> multiplier;  // one value, or one per output channel
  bool has_bias = false;
};

// ConvInteger(x, w, x_zero_point, w_zero_point); kiln::Error naming the node for input the op
// rejects.
IntConvParams resolve_conv_integer(const NodeInputs& inputs, const ConvAttrs& attrs);
// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B).
IntConvParams resolve_qlinear_conv(const NodeInputs& inputs, const ConvAttrs& attrs);

}  // namespace kiln
