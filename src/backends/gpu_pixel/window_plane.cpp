#include "backends/gpu_pixel/window_plane.h"

#include "kiln/error.h"

namespace kiln::gpu_pixel {

std::array<int64_t, 2> as_plane(const Shape& per_axis, int64_t fill) {
  if (per_axis.size() == 1) return {fill, per_axis[0]};
  return {per_axis[0], per_axis[1]};
}

WindowPlane to_window_plane(const WindowGeometry& g, const std::string& where) {
  const size_t rank = g.rank();
  check(rank == 1 || rank == 2,
        where + ": only 1-D and 2-D geometries, got rank " + std::to_string(rank));
  check(g.out.size() == rank && g.kernel.size() == rank && g.stride.size() == rank &&
            g.dilation.size() == rank && g.pad.size() == rank,
        where + ": geometry fields of different ranks");
  for (size_t d = 0; d < rank; ++d) {
    check(g.stride[d] > 0 && g.dilation[d] > 0, where + ": strides and dilations must be > 0");
    check(g.in[d] >= 0 && g.out[d] >= 0 && g.kernel[d] > 0,
          where + ": negative spatial size or empty kernel");
  }
  check(g.coordinates_fit_int32(), where + ": window coordinates beyond 32-bit indexing");
  return {as_plane(g.in, 1),     as_plane(g.out, 1),      as_plane(g.kernel, 1),
          as_plane(g.stride, 1), as_plane(g.dilation, 1), as_plane(g.pad, 0)};
}

void set_ivec2(const Program& program, const char* uniform, const std::array<int64_t, 2>& value) {
  glUniform2i(program.location(uniform), static_cast<int>(value[0]), static_cast<int>(value[1]));
}

void set_window_uniforms(const Program& program, const WindowPlane& plane) {
  set_ivec2(program, "u_in", plane.in);
  set_ivec2(program, "u_out", plane.out);
  set_ivec2(program, "u_kernel", plane.kernel);
  set_ivec2(program, "u_stride", plane.stride);
  set_ivec2(program, "u_dilation", plane.dilation);
  set_ivec2(program, "u_pad", plane.pad);
}

}  // namespace kiln::gpu_pixel
