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

}  // namespace kiln
