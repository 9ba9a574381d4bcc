// AffineGrid (opset 20): the sampling grid GridSample needs to apply a batch of affine
// transforms. Output position (d, h, w) holds theta applied to that position's normalised
// coordinates (x, y[, z], 1), each in [-1, 1].
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

// The normalised coordinates of the `n` positions along one axis. With align_corners the end
// positions sit on -1 and 1; without, the pixels' centres tile [-1, 1]. A single position is 0
// either way (as PyTorch has it).
std::vector<double> axis_coordinates(int64_t n, bool align_corners) {
  std::vector<double> c(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (n == 1) {
      c[i] = 0.0;
    } else if (align_corners) {
      c[i] = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    } else {
      c[i] = (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
    }
  }
  return c;
}

CpuKernel make_affine_grid(const NodeInfo& info) {
  const bool align_corners = info.attr_int("align_corners", 0) != 0;
  return [align_corners](OpContext& ctx) {
    const Tensor& theta = ctx.input(0);
    const Shape size = read_index_list(ctx, ctx.input(1), "size");
    if (size.size() != 4 && size.size() != 5) {
      ctx.fail("size must be (N, C, H, W) or (N, C, D, H, W), got " + size.to_string());
    }
    for (int64_t d : size) {
      if (d < 0) ctx.fail("size must not be negative, got " + size.to_string());
    }
    const auto r = static_cast<int64_t>(size.size()) - 2;  // 2 or 3 spatial axes
    const Shape expected{size[0], r, r + 1};
    if (theta.shape() != expected) {
      ctx.fail("theta must have shape " + expected.to_string() + ", got " +
               theta.shape().to_string());
    }
    // Spatial axes in order (D,) H, W; the grid's last axis lists x (W) first.
    Shape out_shape{size[0]};
    for (int64_t d = 0; d < r; ++d) out_shape.push_back(size[2 + d]);
    out_shape.push_back(r);
    vision::check_shape_size(ctx, out_shape, "the grid shape");
    Tensor& grid = ctx.allocate_output(0, theta.dtype(), out_shape);
    if (grid.element_count() == 0) return;
    std::vector<std::vector<double>> coords;
    for (int64_t d = 0; d < r; ++d) coords.push_back(axis_coordinates(size[2 + d], align_corners));
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
