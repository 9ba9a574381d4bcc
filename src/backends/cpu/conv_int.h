// Integer convolution for the quantized ops (ConvInteger, QLinearConv): exact int32 results.
//
// Per image, group and chunk of output positions, the int16 column matrix (rows ordered
// (channel, kernel tap) like a weight row, as in conv_im2col.h) is built once and multiplied by
// the group's weight rows with 32-bit accumulators that wrap modulo 2^32, which is what an
// int32 accumulator does in ONNX's definition, without C++'s signed-overflow undefined
// behaviour.
#pragma once

#include <cstdint>

#include "backends/cpu/conv_f32.h"

namespace kiln::cpu {

// y = conv(x, w) + bias. x: [batch, in_channels, in...] and w: [out_channels,
// in_channels / group, kernel...] hold zero-point-shifted values; bias ([out_channels]) may be
// null; y: [batch, out_channels, out...].
void conv_int32(const ConvProblem& p, const int16_t* x, const int16_t* w, const int32_t* bias,
                int32_t* y);

}  // namespace kiln::cpu
