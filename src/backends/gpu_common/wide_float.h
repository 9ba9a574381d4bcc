// Host side of the GPU sums kept to about twice float's precision (gpu_compute's
// shaders/wide_float.glsl, gpu_pixel's wide_float.h): a double as the three floats their
// product() takes.
#pragma once

#include <vector>

namespace kiln {

// Appends v as (high half, low half, rest): the float nearest v split into two halves of at most
// 12 significant bits (Veltkamp's split, exact), then what that float misses of v.
inline void push_wide(std::vector<float>& table, double v) {
  const auto hi = static_cast<float>(v);
  const float t = 4097.0f * hi;
  const float hi1 = t - (t - hi);
  table.push_back(hi1);
  table.push_back(hi - hi1);
  table.push_back(static_cast<float>(v - static_cast<double>(hi)));
}

}  // namespace kiln
