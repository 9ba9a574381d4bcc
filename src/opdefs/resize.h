// Resize and Upsample attributes, and their resolution against the inputs (scales or sizes,
// roi, axes, keep_aspect_ratio_policy) into one ResizeAxis per dimension: shared by the CPU op
// and the GPU backends, so every backend computes the same output shape and coordinates.
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

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

enum class AspectPolicy { Stretch, NotLarger, NotSmaller };

struct ResizeConfig {
  ResizeOptions options;
  AspectPolicy policy = AspectPolicy::Stretch;
  std::vector<int64_t> axes;  // empty: every axis
  bool is_upsample = false;
  int opset = 0;
  std::vector<float> attr_scales;  // Upsample-7
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

// The same, bounded to +-1e15 so that float-to-integer conversions of coordinates far outside
// the input (which only ever get clamped) stay defined.
float bounded_source_coordinate(float x, const ResizeAxis& axis, ResizeCoordinateMode mode);

// Fills `taps` for every output coordinate of `axis`.
void compute_axis_taps(const ResizeAxis& axis, const ResizeOptions& options, AxisTaps& taps);

ResizeConfig parse_resize_config(const NodeInfo& info, bool is_upsample);

// Reads scales / sizes / roi from the inputs (host values) for input 0's shape; kiln::Error
// naming the node for inputs the op rejects. Each axis's `out` is the output's size along it.
std::vector<ResizeAxis> resolve_resize(const ResizeConfig& cfg, const NodeInputs& inputs);
// The same for an input of shape `in_shape` (shape inference: input 0 need not be there).
std::vector<ResizeAxis> resolve_resize(const ResizeConfig& cfg, const NodeInputs& inputs,
                                       const Shape& in_shape);

}  // namespace kiln
