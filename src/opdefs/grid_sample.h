// GridSample's attributes (opsets 16, 20, 22), parsed once for the CPU kernel and the GPU
// backends: the interpolation, the padding outside the input, and whether -1 and 1 are the
// centres of the corner pixels (align_corners) or their outer edges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The Vulkan shader takes these values as its codes: append only.
enum class GridSampleMode : uint32_t { Nearest, Linear, Cubic };
enum class GridSamplePadding : uint32_t { Zeros, Border, Reflection };

struct GridSampleAttrs {
  GridSampleMode mode = GridSampleMode::Linear;
  GridSamplePadding padding = GridSamplePadding::Zeros;
  bool align_corners = false;
};

// Keys' cubic convolution coefficient, as PyTorch uses.
inline constexpr double kGridSampleCubicAlpha = -0.75;

// kiln::Error (naming the node) for an unknown mode or padding_mode. Opset 16's "bilinear" and
// "bicubic" are opset 20's "linear" and "cubic".
GridSampleAttrs parse_grid_sample_attrs(const NodeInfo& info);

// The output shape [N, C, D1_out, ...] of X [N, C, D1, ...] sampled at grid
// [N, D1_out, ..., rank]; nullopt with `error` set when the shapes do not fit together.
std::optional<Shape> grid_sample_output_shape(const Shape& x, const Shape& grid,
                                              std::string& error);

}  // namespace kiln
