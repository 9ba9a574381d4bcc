// AffineGrid (opset 20): the sampling grid GridSample needs to apply a batch of affine
// transforms. Output position (d, h, w) holds theta applied to that position's normalised
// coordinates (x, y[, z], 1), each in [-1, 1].
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "opdefs/affine_grid.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

CpuKernel make_affine_grid(const NodeInfo& info) {
  const bool align_corners = info.attr_int("align_corners", 0) != 0;
  return [align_corners](OpContext& ctx) {
    const Tensor& theta = ctx.input(0);
    const AffineGridSizes sizes = resolve_affine_grid(NodeInputs{ctx.node(), ctx.inputs()});
    const Shape& size = sizes.size;
    const int64_t r = sizes.spatial;
    const Shape& out_shape = sizes.out_shape;
    Tensor& grid = ctx.allocate_output(0, theta.dtype(), out_shape);
    if (grid.element_count() == 0) return;
    std::vector<std::vector<double>> coords;
    for (int64_t d = 0; d < r; ++d)
      coords.push_back(affine_grid_coordinates(size[2 + d], align_corners));
    const int64_t depth = r == 3 ? size[2] : 1, height = size[r], width = size[r + 1];
    visit_float(ctx, theta.dtype(), "theta", [&]<class T>() {
      const T* th = theta.data<T>();
      T* out = grid.mutable_data<T>();
      for (int64_t n = 0; n < size[0]; ++n) {
        double m[3][4];
        for (int64_t i = 0; i < r; ++i) {
          for (int64_t j = 0; j <= r; ++j) m[i][j] = vision::load(th[(n * r + i) * (r + 1) + j]);
        }
        for (int64_t z = 0; z < depth; ++z) {
          for (int64_t yy = 0; yy < height; ++yy) {
            for (int64_t xx = 0; xx < width; ++xx) {
              // Homogeneous position (x, y[, z], 1).
              double pos[4] = {coords[r - 1][xx], coords[r - 2][yy], 0.0, 1.0};
              if (r == 3) pos[2] = coords[0][z];
              pos[r] = 1.0;
              for (int64_t i = 0; i < r; ++i) {
                double v = 0;
                for (int64_t j = 0; j <= r; ++j) v += m[i][j] * pos[j];
                *out++ = vision::store<T>(v);
              }
            }
          }
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(affine_grid);
void register_affine_grid_ops(OpRegistry& registry) {
  registry.add("AffineGrid", make_affine_grid);
}

}  // namespace kiln
