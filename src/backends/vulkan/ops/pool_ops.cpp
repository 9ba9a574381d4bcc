// Pooling on the GPU. GlobalAveragePool / GlobalMaxPool reduce each (n, c) plane with
// shaders/reduce.comp.
#include "backends/vulkan/ops/op_table.h"
#include "backends/vulkan/reduce.h"

namespace kiln::vulkan {
namespace {

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
  t.add("GlobalAveragePool", global_pool_factory(ReduceOp::Mean));
  t.add("GlobalMaxPool", global_pool_factory(ReduceOp::Max));
}

}  // namespace kiln::vulkan
