// Depthwise convolution (one filter per channel, group == channels) over 1-D and 2-D images:
// too little arithmetic per element for a GEMM to pay off, so each output plane is computed
// directly, vectorised along the output row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "opdefs/window.h"

namespace kiln::cpu {

// y (out plane) = bias + sum over taps of w[tap] * x (in plane) under the window, for one
// channel of a rank-2 geometry (a 1-D conv is passed as height 1). `scratch` holds
// depthwise_scratch_floats(g) floats: common kernels (3x3, 5x5, stride 1 or 2) copy the plane
// into it with its zero padding, so their inner loops need no bounds checks.
void depthwise_conv2d_plane(const WindowGeometry& g, const float* x, const float* w, float bias,
                            float* y, float* scratch);
size_t depthwise_scratch_floats(const WindowGeometry& g);

}  // namespace kiln::cpu
