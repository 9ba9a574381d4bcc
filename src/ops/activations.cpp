#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_activation_ops(OpRegistry& registry) {
  registry.add("Relu", [](const NodeInfo&) -> CpuKernel {
    return [](OpContext& ctx) {
      const Tensor& x = ctx.input(0);
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      const float* in = x.data<float>();
      float* out = y.mutable_data<float>();
      for (int64_t i = 0; i < x.element_count(); ++i) out[i] = in[i] > 0 ? in[i] : 0;
    };
  });
}

}  // namespace kiln
