#include "opdefs/affine_grid.h"

#include <string>

#include "core/element_storage.h"

namespace kiln {

AffineGridSizes resolve_affine_grid(const NodeInputs& inputs) {
  const Tensor& theta = inputs.input(0);
  const Tensor& size_input = inputs.input(1);
  if (size_input.rank() > 1) {
    inputs.fail("size must be a 1-D tensor, got shape " + size_input.shape().to_string());
  }
  AffineGridSizes s;
  if (!copy_int_list(size_input, s.size)) {
    inputs.fail("size must be int32 or int64, got " + std::string(dtype_name(size_input.dtype())));
  }
  const Shape& size = s.size;
  if (size.size() != 4 && size.size() != 5) {
    inputs.fail("size must be (N, C, H, W) or (N, C, D, H, W), got " + size.to_string());
  }
  for (int64_t d : size) {
    if (d < 0) inputs.fail("size must not be negative, got " + size.to_string());
  }
  s.spatial = static_cast<int64_t>(size.size()) - 2;
  const int64_t r = s.spatial;
  const Shape expected{size[0], r, r + 1};
  if (theta.shape() != expected) {
    inputs.fail("theta must have shape " + expected.to_string() + ", got " +
                theta.shape().to_string());
  }
  // Spatial axes in order (D,) H, W; the grid's last axis lists x (W) first.
  s.out_shape = Shape{size[0]};
  for (int64_t d = 0; d < r; ++d) s.out_shape.push_back(size[2 + d]);
  s.out_shape.push_back(r);
  int64_t count = 1;
  for (int64_t d : s.out_shape) {
    if (__builtin_mul_overflow(count, d, &count)) {
      inputs.fail("the grid shape " + s.out_shape.to_string() + " is not a valid tensor shape");
    }
  }
  return s;
}

std::vector<double> affine_grid_coordinates(int64_t n, bool align_corners) {
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

}  // namespace kiln
