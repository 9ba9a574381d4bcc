// Depthwise convolution over small maps (7 x 7, 14 x 14: the late stages of mobile networks),
// vectorised across channels instead of along the row. A row of 7 outputs fills 7 of AVX-512's
// 16 lanes, and every load at its ends needs a mask; here a group of one vector's worth of
// channels is copied into a zero-padded scratch with the channels innermost (the blocked
// channel layout, for the one layer), so that every tap is one full-width FMA with no bounds
// and no masks, and copied back.
#pragma once

#include <cstdint>

#include "backends/cpu/conv_depthwise.h"
#include "opdefs/window.h"

namespace kiln::cpu {

// Whether the channel-vectorised kernel takes a depthwise conv of this geometry (3x3 or 5x5,
// stride 1 or 2, no dilation, an output row at most 14 wide).
bool depthwise_channels_applies(const WindowGeometry& g);

// Channels [begin, end) of one image: y_c = clamp(bias_c + depthwise(x_c, w_c)), x: channels
// planes of g.in, w: [channels, kh, kw], y: planes of g.out (bias may be null).
void depthwise_conv2d_channels(const WindowGeometry& g, const float* x, const float* w,
                               const float* bias, const DepthwiseClamp& clamp, float* y,
                               int64_t begin, int64_t end);

// Channels one call computes together (the SIMD target's lanes): the grain to split by.
int64_t depthwise_channel_group();

}  // namespace kiln::cpu
