// HannWindow, HammingWindow, BlackmanWindow: generalized cosine windows
//
//   w[n] = a0 - a1 * cos(2*pi*n / N) + a2 * cos(4*pi*n / N),   n = 0 .. size - 1
//
// with N = size when periodic (the default: the window of a spectral analysis, one period of a
// longer window) and N = size - 1 when symmetric (the window of a filter design).
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/signal_util.h"

namespace kiln {
namespace {

struct CosineWindow {
  double a0, a1, a2;
};

constexpr CosineWindow kHann{0.5, 0.5, 0.0};
constexpr CosineWindow kHamming{25.0 / 46.0, 21.0 / 46.0, 0.0};
constexpr CosineWindow kBlackman{0.42, 0.5, 0.08};

KernelFactory window_factory(CosineWindow coefficients) {
  return [coefficients](const NodeInfo& info) -> CpuKernel {
    const DataType out_type = output_datatype_attr(info);
    const bool periodic = info.attr_int("periodic", 1) != 0;
    return [=](OpContext& ctx) {
      const int64_t size = scalar_int_input(ctx, 0, "size");
      if (size < 0) ctx.fail("size must not be negative, got " + std::to_string(size));
      std::vector<double> values(static_cast<size_t>(size));
      // A one-point symmetric window has N = 0; like the usual libraries, it is [1].
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
  };
}

}  // namespace

KILN_CPU_OPS(window_function);
void register_window_function_ops(OpRegistry& registry) {
  registry.add("HannWindow", window_factory(kHann));
  registry.add("HammingWindow", window_factory(kHamming));
  registry.add("BlackmanWindow", window_factory(kBlackman));
}

}  // namespace kiln
