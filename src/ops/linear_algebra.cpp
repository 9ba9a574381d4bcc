// Det: the determinant of each square matrix in the last two dimensions.
//
// Computed by Gaussian elimination with partial pivoting in double, whatever the element type,
// so that float16 and float32 inputs lose nothing to the elimination itself.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/det.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// The determinant of the n x n row-major matrix in `a`, which it overwrites.
double determinant_in_place(double* a, int64_t n) {
  double det = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
    }
    if (a[pivot * n + col] == 0) return 0;  // singular (NaN pivots carry on and give NaN)
    if (pivot != col) {
      std::swap_ranges(a + pivot * n, a + pivot * n + n, a + col * n);
      det = -det;
    }
    const double p = a[col * n + col];
    det *= p;
    for (int64_t r = col + 1; r < n; ++r) {
      const double factor = a[r * n + col] / p;
      if (factor == 0) continue;
      for (int64_t c = col + 1; c < n; ++c) a[r * n + c] -= factor * a[col * n + c];
    }
  }
  return det;
}

template <class T>
void determinants(const T* x, T* y, int64_t count, int64_t n) {
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(n * n * n, 1));
  parallel_for(count, grain, [&](int64_t begin, int64_t end) {
    std::vector<double> matrix(static_cast<size_t>(n * n));
    for (int64_t m = begin; m < end; ++m) {
      const T* src = x + m * n * n;
      for (int64_t i = 0; i < n * n; ++i) matrix[i] = to_double(src[i]);
      y[m] = static_cast<T>(determinant_in_place(matrix.data(), n));
    }
  });
}

CpuKernel make_det(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t n = resolve_det_order(ctx.node(), x.shape());
    const Shape out_shape = det_output_shape(x.shape());
    const DataType dtype = x.dtype();
    if (dtype != DataType::Float32 && dtype != DataType::Float64 && dtype != DataType::Float16 &&
        dtype != DataType::BFloat16) {
      ctx.fail("expects a float16, bfloat16, float32 or float64 input, got " +
               std::string(dtype_name(dtype)));
    }
    Tensor& y = ctx.allocate_output(0, dtype, out_shape);
    visit_dtype(dtype, [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        // The determinant of a 0 x 0 matrix is 1 (the empty product).
        determinants(x.data<T>(), y.mutable_data<T>(), out_shape.element_count(), n);
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(linear_algebra);
void register_linear_algebra_ops(OpRegistry& registry) { registry.add("Det", make_det); }

}  // namespace kiln
