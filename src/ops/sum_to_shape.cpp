// kiln::SumToShape, the reverse of broadcasting (opdefs/training_defs.h).
#include <string>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/training_defs.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

// The target shape, checked to broadcast to `from`.
Shape read_target_shape(const OpContext& ctx, const Shape& from) {
  const Tensor& t = ctx.input(1);
  if (t.rank() != 1) ctx.fail("shape must be a 1-D tensor, got shape " + t.shape().to_string());
  const std::vector<int64_t> dims = to_int64_vector(t, ctx.node().describe());
  Shape target;
  for (int64_t d : dims) target.push_back(d);
  bool fits = target.size() <= from.size();
  const size_t lead = fits ? from.size() - target.size() : 0;
  for (size_t d = 0; fits && d < target.size(); ++d) {
    fits = target[d] == from[lead + d] || target[d] == 1;
  }
  if (!fits) {
    ctx.fail("cannot sum a tensor of shape " + from.to_string() + " to shape " +
             target.to_string() + ", which does not broadcast to it");
  }
  return target;
}

void sum_to_shape(OpContext& ctx) {
  const Tensor& g = ctx.input(0);
  const Shape target = read_target_shape(ctx, g.shape());
  if (target == g.shape()) {
    ctx.set_output(0, g);  // nothing was broadcast
    return;
  }
  Tensor& out = ctx.allocate_output(0, g.dtype(), target);
  visit_dtype(g.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      // Accumulate in double: a broadcast axis may be long.
      std::vector<double> sums(static_cast<size_t>(out.element_count()), 0.0);
      const T* src = g.data<T>();
      for_each_broadcast(g.shape(), strides_of(g.shape()), broadcast_strides(target, g.shape()),
                         [&](int64_t, int64_t gi, int64_t oi) { sums[oi] += to_double(src[gi]); });
      T* dst = out.mutable_data<T>();
      for (size_t i = 0; i < sums.size(); ++i) {
        if constexpr (std::is_same_v<T, double>) {
          dst[i] = sums[i];
        } else {
          dst[i] = static_cast<T>(static_cast<float>(sums[i]));
        }
      }
    } else {
      ctx.fail("sums float tensors, got " + std::string(dtype_name(g.dtype())));
    }
  });
}

}  // namespace

KILN_CPU_OPS(sum_to_shape);
void register_sum_to_shape_ops(OpRegistry& registry) {
  registry.add(kKilnDomain, kSumToShapeOp, [](const NodeInfo& info) -> CpuKernel {
    if (info.num_inputs() != 2 || !info.has_input(0) || !info.has_input(1)) {
      info.fail("expects two inputs (G, shape)");
    }
    return sum_to_shape;
  });
}

}  // namespace kiln
