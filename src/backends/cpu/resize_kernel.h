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

namespace kiln::cpu {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class ResizeCoordinateMode {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn,
  TfCropAndResize,
};
// Simple is the rounding of Upsample and Resize-10, which had no nearest_mode: floor when
// upsampling, ceil when downsampling.
enum class ResizeNearestMode { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

struct ResizeOptions {
  ResizeMode mode = ResizeMode::Nearest;
  ResizeCoordinateMode coordinate = ResizeCoordinateMode::HalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::RoundPreferFloor;
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation_value = 0.0f;
  bool antialias = false;
};

// One axis of a resize. `scale` is the factor the coordinate mapping divides by, and `length`
// the unrounded output length in * scale (align_corners, pytorch_half_pixel,
// half_pixel_symmetric and tf_crop_and_resize map coordinates with it, not with the integer
// `out`). The roi is read only by tf_crop_and_resize, as fractions of the input length.
struct ResizeAxis {
  int64_t in = 1;
  int64_t out = 1;
  float scale = 1.0f;
  float length = 1.0f;
  float roi_start = 0.0f;
  float roi_end = 1.0f;
};

// The taps of every output coordinate of one axis: coordinate o uses entries
// [first[o], first[o + 1]) of index/weight. An index of -1 marks a coordinate outside the
// tf_crop_and_resize region, whose outputs take the extrapolation value.
struct AxisTaps {
  std::vector<int64_t> first;
  std::vector<int64_t> index;
  std::vector<float> weight;
  int64_t max_count = 1;
};

// The input coordinate that output coordinate `x` of `axis` maps to.
float resize_source_coordinate(float x, const ResizeAxis& axis, ResizeCoordinateMode mode);

// Fills `taps` for every output coordinate of `axis`.
void compute_axis_taps(const ResizeAxis& axis, const ResizeOptions& options, AxisTaps& taps);

// Resizes `x` into `y` (already allocated with the output shape). `axes` has one entry per
// dimension of x. Supports the numeric element types; throws kiln::Error for others.
// uint8 with antialias (linear or cubic) is computed as ONNX Runtime computes it, in fixed point
// one axis at a time, and matches its output bit for bit; the other linear and cubic resizes sum
// in floating point over the product of the per-axis taps and round integer results once.
void resize(const Tensor& x, Tensor& y, std::span<const ResizeAxis> axes,
            const ResizeOptions& options);

}  // namespace kiln::cpu
