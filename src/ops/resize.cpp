// Resize and Upsample on the CPU: the definition (opdefs/resize.h) resolves each axis, the
// interpolation is backends/cpu/resize_kernel.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/resize_kernel.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/resize.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {}  // namespace

namespace {

void run_resize(const ResizeConfig& cfg, OpContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::vector<ResizeAxis> per_axis = resolve_resize(cfg, {ctx.node(), ctx.inputs()});
  Shape out_shape = x.shape();
  for (size_t d = 0; d < per_axis.size(); ++d) out_shape[d] = per_axis[d].out;
  Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
  try {
    cpu::resize(x, y, per_axis, cfg.options);
  } catch (const Error& e) {
    ctx.fail(e.what());
  }
}

}  // namespace

namespace {

CpuKernel make_resize_like(const NodeInfo& info, bool is_upsample) {
  const ResizeConfig cfg = parse_resize_config(info, is_upsample);
  return [cfg](OpContext& ctx) { run_resize(cfg, ctx); };
}

}  // namespace

KILN_CPU_OPS(resize);
void register_resize_ops(OpRegistry& registry) {
  registry.add("Resize", [](const NodeInfo& info) { return make_resize_like(info, false); });
  registry.add("Upsample", [](const NodeInfo& info) { return make_resize_like(info, true); });
}

}  // namespace kiln
