// Depthwise convolution (one filter per channel, group == channels) over 1-D and 2-D images:
// too little arithmetic per element for a GEMM to pay off, so each output plane is computed
// directly, vectorised along the output row. (Small maps are vectorised across channels
// instead: conv_depthwise_channels.h.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "opdefs/window.h"

namespace kiln::cpu {

// Bounds applied to each output while it is still in a register: Relu is [0, inf), Clip
// [min, max]; the default changes nothing.
struct DepthwiseClamp {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  // Whether there is anything to apply (skipped otherwise, so that NaN stays NaN).
  bool active() const {
    return lo > -std::numeric_limits<float>::infinity() ||
           hi < std::numeric_limits<float>::infinity();
  }
};

// y (out plane) = clamp(bias + sum over taps of w[tap] * x (in plane) under the window), for one
// channel of a rank-2 geometry (a 1-D conv is passed as height 1). `scratch` holds
// depthwise_scratch_floats(g) floats: where the target has no masked loads, the common kernels
// (3x3, 5x5, stride 1 or 2) copy the plane into it with its zero padding, so that their inner
// loops need no bounds checks; with AVX2 and AVX-512 they read the plane in place (and a row of
// zeros from the scratch for window rows outside the image).
void depthwise_conv2d_plane(const WindowGeometry& g, const float* x, const float* w, float bias,
                            const DepthwiseClamp& clamp, float* y, float* scratch);
size_t depthwise_scratch_floats(const WindowGeometry& g);

}  // namespace kiln::cpu
