// Pooling on the GPU. MaxPool and AveragePool with 1 or 2 spatial axes run shaders/pool.comp,
// their windows parsed and resolved by the same code as the CPU kernel's; GlobalAveragePool and
// GlobalMaxPool reduce each (n, c) plane with shaders/reduce.comp.
#include "backends/vulkan/ops/op_table.h"
#include "backends/vulkan/pool.h"
#include "backends/vulkan/reduce.h"
#include "ops/window_geometry.h"
#include "runtime/cpu_op_rules.h"

namespace kiln::vulkan {
namespace {

RecordFn pool(PoolKind kind, WindowAttrs window, bool count_include_pad, NodeRef node) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    // Shapes the kernel does not take, or that are wrong, go to the CPU kernel and its errors.
    if (x.size() != window.kernel_shape.size() + 2)
      throw RunOnCpu("pool input rank does not match kernel_shape");
    const ResolveContext resolve(node);
    cpu::PoolShape s;
    s.geometry = resolve_window(window, Shape(x.begin() + 2, x.end()), Shape(window.kernel_shape),
                                resolve.context(), &s.pad_end);
    s.planes = x[0] * x[1];
    const PoolPushConstants pc = pool_constants(s, kind, count_include_pad);
    Shape y_shape{x[0], x[1]};
    for (int64_t d : s.geometry.out) y_shape.push_back(d);
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, y_shape);
    r.add_work(static_cast<uint64_t>(y_shape.element_count()) * s.geometry.kernel_size());
    r.kernel<Pool>().record(r.cmd(), r.arena(), pc, xb, y);
  };
}

OpFactory pool_factory(PoolKind kind) {
  return [kind](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    if (q.info.has_output(1)) {
      reason = "MaxPool's Indices output has no GPU kernel";
      return nullptr;
    }
    WindowAttrs window = parse_window_attrs(q.info);
    const size_t rank = window.kernel_shape.size();
    if (rank != 1 && rank != 2) {
      reason = std::to_string(rank) + "-D pooling has no GPU kernel (1-D and 2-D do)";
      return nullptr;
    }
    return pool(kind, std::move(window), q.info.attr_int("count_include_pad", 0) != 0,
                NodeRef(q.info));
  };
}

RecordFn global_pool(ReduceOp op) {
  return [op](OpRecorder& r) {
    const Shape& x = r.shape(0);
    if (x.size() < 3) throw RunOnCpu("a global pool needs an (N, C, spatial...) input");
    Shape y_shape{x[0], x[1]};
    std::vector<bool> reduced(x.size(), true);
    reduced[0] = reduced[1] = false;
    for (size_t d = 2; d < x.size(); ++d) y_shape.push_back(1);
    const std::optional<ReduceProblem> p = reduce_problem(x, reduced, op);
    if (!p || (x.element_count() == 0 && y_shape.element_count() != 0))
      throw RunOnCpu("global pool shape outside the GPU kernel");
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

}  // namespace

void register_pool_ops(OpTable& t) {
  t.add("MaxPool", pool_factory(PoolKind::Max));
  t.add("AveragePool", pool_factory(PoolKind::Average));
  t.add("GlobalAveragePool", global_pool_factory(ReduceOp::Mean));
  t.add("GlobalMaxPool", global_pool_factory(ReduceOp::Max));
}

}  // namespace kiln::vulkan
