// Pooling on the GPU. MaxPool, AveragePool and LpPool with 1 to 3 spatial axes run
// shaders/pool.comp (MaxPool with its Indices output shaders/max_pool_indices.comp), their
// attributes and windows parsed and resolved by the same code as the CPU kernel's (opdefs/pool.h;
// MaxPool of int8 and uint8 too, through float32);
// GlobalAveragePool, GlobalMaxPool and GlobalLpPool (p = 1 or 2) reduce each (n, c) plane with
// shaders/reduce.comp.
#include <algorithm>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pool.h"
#include "backends/gpu_compute/reduce.h"
#include "opdefs/pool.h"

namespace kiln::gpu_compute {
namespace {

RecordFn pool(PoolAttrs attrs, bool with_indices, NodeRef node) {
  return [attrs = std::move(attrs), with_indices, node](OpRecorder& r) {
    const WindowAttrs& window = attrs.window;
    const Shape& x = r.shape(0);
    // A rank the kernel does not take goes to the CPU kernel, which reports a wrong one.
    if (x.size() != window.kernel_shape.size() + 2)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "pool input rank does not match kernel_shape");
    PoolShape s;
    s.geometry = resolve_window(window, Shape(x.begin() + 2, x.end()), Shape(window.kernel_shape),
                                *node.node, &s.pad_end);
    s.planes = x[0] * x[1];
    PoolPushConstants pc = or_run_on_cpu(RunTimeCause::DeviceLimit, [&] {
      return pool_constants(s, attrs.kind, attrs.count_include_pad, attrs.p);
    });
    pc.column_major = attrs.column_major ? 1 : 0;
    Shape y_shape{x[0], x[1]};
    for (int64_t d : s.geometry.out) y_shape.push_back(d);
    r.add_work(static_cast<uint64_t>(y_shape.element_count()) * s.geometry.kernel_size());
    // The pool of float32 x into y, and MaxPool's Indices when the node has them.
    const auto record_pool = [&](const Buffer& from, const Buffer& to) {
      if (!with_indices) return r.kernel<Pool>().record(r.cmd(), r.arena(), pc, from, to);
      const Buffer& indices = r.output(1, DataType::Int64, y_shape);
      r.kernel<MaxPoolWithIndices>().record(r.cmd(), r.arena(), pc, from, to, indices);
    };
    const DataType dt = r.dtype(0);
    if (dt == DataType::Float32) {
      const Buffer& xb = r.buffer(0);
      record_pool(xb, r.output(0, dt, y_shape));
      return;
    }
    // MaxPool of 8-bit integers: exact in float32, so the float kernel takes their widened
    // values and its maxima convert back exactly.
    if (!r.device().info().has_int64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
    const auto in_count = static_cast<uint64_t>(x.element_count());
    const auto out_count = static_cast<uint64_t>(y_shape.element_count());
    const Buffer& xb = r.buffer(0);
    const Buffer& x_wide =
        r.scratch(static_cast<size_t>(std::max<uint64_t>(in_count, 1)) * sizeof(float));
    const Buffer& y_wide =
        r.scratch(static_cast<size_t>(std::max<uint64_t>(out_count, 1)) * sizeof(float));
    const WideCast& cast = r.kernel<WideCast>();
    cast.record(r.cmd(), r.arena(), dt, xb, DataType::Float32, x_wide, in_count, {});
    record_pool(x_wide, y_wide);
    cast.record(r.cmd(), r.arena(), DataType::Float32, y_wide, dt, r.output(0, dt, y_shape),
                out_count, {});
  };
}

OpFactory pool_factory(PoolOp kind) {
  return [kind](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (kind == PoolOp::Max
            ? !inputs_are(q, {DataType::Float32, DataType::UInt8, DataType::Int8}, reason)
            : !inputs_are(q, {DataType::Float32}, reason))
      return nullptr;
    PoolAttrs attrs;
    if (!attributes_accepted([&] { attrs = parse_pool_attrs(q.info, kind); }, reason))
      return nullptr;
    const size_t rank = attrs.window.kernel_shape.size();
    if (rank > kPoolMaxSpatialAxes) {
      reason = std::to_string(rank) + "-D pooling has no GPU kernel (1-D to 3-D do)";
      return nullptr;
    }
    const bool with_indices = kind == PoolOp::Max && q.info.has_output(1);
    return pool(std::move(attrs), with_indices, NodeRef(q.info));
  };
}

RecordFn global_pool(ReduceOp op) {
  return [op](OpRecorder& r) {
    const Shape& x = r.shape(0);
    if (x.size() < 3)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "a global pool needs an (N, C, spatial...) input");
    Shape y_shape{x[0], x[1]};
    std::vector<bool> reduced(x.size(), true);
    reduced[0] = reduced[1] = false;
    for (size_t d = 2; d < x.size(); ++d) y_shape.push_back(1);
    const std::optional<ReduceProblem> p = reduce_problem(x, reduced, op);
    if (!p || (x.element_count() == 0 && y_shape.element_count() != 0))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "global pool shape outside the GPU kernel");
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, y_shape);
    r.add_work(static_cast<uint64_t>(x.element_count()));
    r.kernel<Reduce>().record(r.cmd(), r.arena(), *p, xb, y);
  };
}

OpFactory global_pool_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return global_pool(op);
  };
}

// GlobalLpPool as the plane's L1 or L2 norm; other exponents stay on the CPU.
OpFactory global_lp_pool_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const int64_t p = q.info.attr_int("p", 2);
    if (p != 1 && p != 2) {
      reason = "GlobalLpPool with p = " + std::to_string(p) + " has no GPU kernel (1 and 2 do)";
      return nullptr;
    }
    return global_pool_factory(p == 1 ? ReduceOp::L1 : ReduceOp::L2)(q, reason);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(pool);
void register_pool_ops(OpTable& t) {
  t.add("MaxPool", pool_factory(PoolOp::Max));
  t.add("AveragePool", pool_factory(PoolOp::Average));
  t.add("LpPool", pool_factory(PoolOp::Lp));
  t.add("GlobalAveragePool", global_pool_factory(ReduceOp::Mean));
  t.add("GlobalMaxPool", global_pool_factory(ReduceOp::Max));
  t.add("GlobalLpPool", global_lp_pool_factory());
}

}  // namespace kiln::gpu_compute
