// The interpolation math of Resize and Upsample: per-axis coordinate mapping and filter taps,
// and the separable N-D kernel that applies them.
//
// Every output coordinate along an axis maps to a short list of (input index, weight) taps:
// one for nearest, two for linear, four for cubic, a stretched window for antialiased
// downsampling. An output element is the weighted sum over the product of its per-axis taps,
// which is exactly what the spec's axis-by-axis interpolation computes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kiln/tensor.h"
#include "opdefs/resize.h"

namespace kiln::cpu {

// Resizes `x` into `y` (already allocated with the output shape). `axes` has one entry per
// dimension of x. Supports the numeric element types; throws kiln::Error for others.
// uint8 with antialias (linear or cubic) is computed as ONNX Runtime computes it, in fixed point
// one axis at a time, and matches its output bit for bit; the other linear and cubic resizes sum
// in floating point over the product of the per-axis taps and round integer results once.
void resize(const Tensor& x, Tensor& y, std::span<const ResizeAxis> axes,
            const ResizeOptions& options);

}  // namespace kiln::cpu
