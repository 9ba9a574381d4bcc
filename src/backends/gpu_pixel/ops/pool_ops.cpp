// Pooling as draws (backends/gpu_pixel/pool): MaxPool, AveragePool and LpPool over 1, 2 or 3
// spatial axes with attributes and windows resolved by the CPU op's code (opdefs/pool.h), and
// the global pools.
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/pool.h"
#include "opdefs/pool.h"

namespace kiln::gpu_pixel {
namespace {

OpFactory pool_factory(PoolOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    if (q.info.has_output(1)) {
      reason = "MaxPool's Indices output stays on the CPU";
      return nullptr;
    }
    PoolAttrs attrs;
    if (!attributes_accepted([&] { attrs = parse_pool_attrs(q.info, op); }, reason)) return nullptr;
    const WindowAttrs window = attrs.window;
    const size_t rank = window.kernel_shape.size();
    if (rank > 3) {
      reason = std::to_string(rank) + "-D pooling has no GPU-pixel kernel";
      return nullptr;
    }
    const PoolParams params{op, {}, attrs.count_include_pad, attrs.p};
    const NodeRef node(q.info);
    return [=](OpRecorder& r) {
      const Shape& x = r.shape(0);
      if (x.size() != rank + 2)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "pool input rank does not match kernel_shape");
      PoolParams p = params;
      p.shape.geometry = resolve_window(window, Shape(x.begin() + 2, x.end()),
                                        Shape(window.kernel_shape), *node.node, &p.shape.pad_end);
      // A device limit known only per run: shaders index in 32 bits.
      if (!p.shape.geometry.coordinates_fit_int32(p.shape.pad_end))
        throw RunOnCpu(RunTimeCause::DeviceLimit, "window coordinates beyond 32-bit indexing");
      p.shape.planes = x[0] * x[1];
      Shape y_shape{x[0], x[1]};
      for (int64_t d : p.shape.geometry.out) y_shape.push_back(d);
      const TextureTensor& xt = r.texture(0);
      r.kernel<Pool>().record(p, xt, r.output(0, y_shape));
    };
  };
}

OpFactory global_pool_factory(PoolOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const float p = static_cast<float>(q.info.attr_int("p", 2));
    return [op, p](OpRecorder& r) {
      const Shape& x = r.shape(0);
      if (x.size() < 3)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "a global pool needs an (N, C, spatial...) input");
      Shape y_shape{x[0], x[1]};
      for (size_t d = 2; d < x.size(); ++d) y_shape.push_back(1);
      const int64_t planes = x[0] * x[1];
      const int64_t plane_size = planes ? x.element_count() / planes : 0;
      const TextureTensor& xt = r.texture(0);
      r.kernel<Pool>().record_global(op, planes, plane_size, xt, r.output(0, y_shape), p);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(pool);
void register_pool_ops(OpTable& t) {
  t.add("MaxPool", pool_factory(PoolOp::Max));
  t.add("AveragePool", pool_factory(PoolOp::Average));
  t.add("LpPool", pool_factory(PoolOp::Lp));
  t.add("GlobalMaxPool", global_pool_factory(PoolOp::Max));
  t.add("GlobalAveragePool", global_pool_factory(PoolOp::Average));
  t.add("GlobalLpPool", global_pool_factory(PoolOp::Lp));
}

}  // namespace kiln::gpu_pixel
