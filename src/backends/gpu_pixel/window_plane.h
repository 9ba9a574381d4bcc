// A conv or pool window geometry of rank 1 or 2 as the 2-D plane that the window shaders index
// (a 1-D geometry as height 1), and the uniforms that carry it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "backends/gpu_pixel/program.h"
#include "kiln/shape.h"
#include "opdefs/window.h"

namespace kiln::gpu_pixel {

// (height, width) each.
struct WindowPlane {
  std::array<int64_t, 2> in, out, kernel, stride, dilation, pad;
};

// kiln::Error naming `where` unless the geometry has rank 1 or 2 in every field, positive
// strides, dilations and kernel sizes, no negative spatial size, and window coordinates within
// 32 bits.
WindowPlane to_window_plane(const WindowGeometry& geometry, const std::string& where);

// A per-axis list of rank 1 or 2 as (height, width), `fill` for the missing height.
std::array<int64_t, 2> as_plane(const Shape& per_axis, int64_t fill);

// Loop iterations of one window walk, rows and then the columns of each row: an upper bound
// for the loop budget (loop_budget.h).
inline int64_t window_loop_steps(const WindowPlane& plane) {
  return plane.kernel[0] * (1 + plane.kernel[1]);
}

// Sets the ivec2 uniforms u_in, u_out, u_kernel, u_stride, u_dilation and u_pad of the program
// in use (to_window_plane has checked that they fit in 32 bits).
void set_window_uniforms(const Program& program, const WindowPlane& plane);
void set_ivec2(const Program& program, const char* uniform, const std::array<int64_t, 2>& value);

}  // namespace kiln::gpu_pixel
