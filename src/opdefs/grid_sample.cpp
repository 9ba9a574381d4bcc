#include "opdefs/grid_sample.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {

GridSampleAttrs parse_grid_sample_attrs(const NodeInfo& info) {
  GridSampleAttrs a;
  a.align_corners = info.attr_int("align_corners", 0) != 0;
  const std::string mode = info.attr_string("mode", "linear");
  if (mode == "linear" || mode == "bilinear") {
    a.mode = GridSampleMode::Linear;
  } else if (mode == "cubic" || mode == "bicubic") {
    a.mode = GridSampleMode::Cubic;
  } else if (mode == "nearest") {
    a.mode = GridSampleMode::Nearest;
  } else {
    info.fail("unknown mode '" + mode + "' (linear, nearest or cubic)");
  }
  const std::string padding = info.attr_string("padding_mode", "zeros");
  if (padding == "zeros") {
    a.padding = GridSamplePadding::Zeros;
  } else if (padding == "border") {
    a.padding = GridSamplePadding::Border;
  } else if (padding == "reflection") {
    a.padding = GridSamplePadding::Reflection;
  } else {
    info.fail("unknown padding_mode '" + padding + "' (zeros, border or reflection)");
  }
  return a;
}

std::optional<Shape> grid_sample_output_shape(const Shape& x, const Shape& grid,
                                              std::string& error) {
  if (x.size() < 3) {
    error = "X must have shape (N, C, D1, ...), got " + x.to_string();
    return std::nullopt;
  }
  const auto rank = static_cast<int64_t>(x.size()) - 2;
  if (grid.size() != x.size() || grid[0] != x[0] || grid.back() != rank) {
    error = "grid must have shape (N, D1_out, ..., " + std::to_string(rank) +
            ") with N = " + std::to_string(x[0]) + ", got " + grid.to_string();
    return std::nullopt;
  }
  Shape out{x[0], x[1]};
  for (int64_t d = 0; d < rank; ++d) out.push_back(grid[1 + d]);
  return out;
}

}  // namespace kiln
