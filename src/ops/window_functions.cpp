// HannWindow, HammingWindow, BlackmanWindow: the generalized cosine windows of
// opdefs/cosine_window.h, computed in double.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "opdefs/cosine_window.h"
#include "ops/all_ops.h"
#include "ops/signal_util.h"

namespace kiln {
namespace {

CpuKernel make_window(const NodeInfo& info) {
  const CosineWindowAttrs attrs = parse_cosine_window_attrs(info);
  const CosineWindow coefficients = attrs.coefficients;
  const DataType out_type = attrs.out_type;
  const bool periodic = attrs.periodic;
  return [=](OpContext& ctx) {
    const int64_t size = scalar_int_input(ctx, 0, "size");
    if (size < 0) ctx.fail("size must not be negative, got " + std::to_string(size));
    std::vector<double> values(static_cast<size_t>(size));
    const int64_t period = periodic ? size : size - 1;
    for (int64_t n = 0; n < size; ++n) {
      if (period == 0) {
        values[n] = 1.0;
        continue;
      }
      const double phase =
          2.0 * std::numbers::pi * static_cast<double>(n) / static_cast<double>(period);
      values[n] = coefficients.a0 - coefficients.a1 * std::cos(phase) +
                  coefficients.a2 * std::cos(2.0 * phase);
    }
    Tensor& y = ctx.allocate_output(0, out_type, Shape{size});
    store_values(y, values);
  };
}

}  // namespace

KILN_CPU_OPS(window_function);
void register_window_function_ops(OpRegistry& registry) {
  registry.add("HannWindow", make_window);
  registry.add("HammingWindow", make_window);
  registry.add("BlackmanWindow", make_window);
}

}  // namespace kiln
