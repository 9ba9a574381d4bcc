// AffineGrid on the GPU-pixel backend: float32 theta, 2 or 3 spatial axes, with the sizes and
// coordinates its definition (opdefs/affine_grid.h) gives the CPU kernel too. The size is a host
// value (shape-deciding).
//
// One draw: each output value is theta row i applied to the homogeneous position (x, y[, z], 1)
// of its grid point. The CPU computes in double from coordinates in double; here the host's
// double coordinates come as three floats each (a texel: two 12-bit halves, the rest and a zero)
// and the products and sum are kept to about twice float's precision (wide_float.h), rounded
// once.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/wide_float.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/wide_float.h"
#include "opdefs/affine_grid.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr const char* kShader = R"(
uniform highp sampler2D theta;
uniform int theta_width;
uniform highp sampler2D coords;  // texel c: coordinate c as (hi, lo, rest, 0)
uniform int coords_width;
uniform int u_spatial;  // 2 or 3
uniform ivec3 u_extent;  // spatial sizes in the size's order; unused ones 1
uniform ivec3 u_first;   // where each axis's coordinates start in coords

float element(int e) {
  int r = u_spatial;
  int i = e % r;
  int point = e / r;
  // The grid point's index along each spatial axis, the last (W) fastest.
  ivec3 at = ivec3(0);
  for (int d = r - 1; d >= 0; --d) {
    at[d] = point % u_extent[d];
    point /= u_extent[d];
  }
  int row_start = (point * r + i) * (r + 1);
  // Position component j is the coordinate along axis r - 1 - j (x is W, the last axis).
  Wide acc = Wide(0.0, 0.0);
  for (int j = 0; j < r; ++j) {
    int axis = r - 1 - j;
    vec3 c = fetch_texel(coords, coords_width, u_first[axis] + at[axis]).xyz;
    acc = wide_add(acc, wide_product(Wide(fetch_element(theta, theta_width, row_start + j), 0.0),
                                     c), false);
  }
  acc = wide_add(acc, Wide(fetch_element(theta, theta_width, row_start + r), 0.0), false);
  return wide_value(acc);
}
)";

class AffineGrid {
 public:
  explicit AffineGrid(Context& context) : context_(context) {}

  // y = the grid of `s` for theta; `align_corners` places the coordinates.
  void record(const AffineGridSizes& s, bool align_corners, const TextureTensor& theta,
              TextureTensor& y) const {
    if (y.element_count() == 0) return;
    // The coordinates' low parts need float32 texels.
    if (context_.format() != TextureFormat::Rgba32F)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the grid needs float32 textures");
    int extent[3] = {1, 1, 1}, first[3] = {0, 0, 0};
    std::vector<float> table;
    for (int64_t d = 0; d < s.spatial; ++d) {
      const int64_t n = s.size[2 + static_cast<size_t>(d)];
      extent[d] = static_cast<int>(std::max<int64_t>(n, 1));
      first[d] = static_cast<int>(table.size() / 4);
      for (double c : affine_grid_coordinates(n, align_corners)) {
        push_wide(table, c);
        table.push_back(0.0f);
      }
    }
    TextureTensor coords(context_, static_cast<int64_t>(table.size()));
    upload(coords, table);
    const Program& program = context_.programs().get(
        "affine_grid", "", "", std::string(kWideFloatGlsl) + kShader + kElementMain);
    const DrawInput inputs[] = {{"theta", &theta}, {"coords", &coords}};
    draw(
        context_, program, y, inputs,
        [&] {
          set_wide_float_uniforms(program);
          program.set("u_spatial", static_cast<int>(s.spatial));
          glUniform3i(program.location("u_extent"), extent[0], extent[1], extent[2]);
          glUniform3i(program.location("u_first"), first[0], first[1], first[2]);
        },
        4 * (2 * s.spatial));
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn affine_grid(const NodeInfo& info) {
  const bool align_corners = info.attr_int("align_corners", 0) != 0;
  return [node = NodeRef(info), align_corners](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1});
    const AffineGridSizes s = resolve_affine_grid(NodeInputs{*node.node, inputs});
    if (s.out_shape.element_count() > kIndexLimit || r.shape(0).element_count() > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the grid exceeds 32-bit indexing");
    TextureTensor& y = r.output(0, s.out_shape);
    if (s.out_shape.element_count() == 0) return;
    r.kernel<AffineGrid>().record(s, align_corners, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(affine_grid);
void register_affine_grid_ops(OpTable& t) {
  t.add("AffineGrid", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    return affine_grid(q.info);
  });
}

}  // namespace kiln::gpu_pixel
