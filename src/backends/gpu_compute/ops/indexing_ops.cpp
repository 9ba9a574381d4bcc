// Indexed reads on the GPU: Gather, GatherElements and GatherND (shaders/gather.comp) for 32-
// and 64-bit data with int32 or int64 indices; and Compress, a Gather of the indices its host
// condition picks (the definition's, opdefs/compress.h).
#include <span>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/gather.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "core/tensor_impl.h"
#include "opdefs/compress.h"

namespace kiln::gpu_compute {
namespace {

using PlanFn = std::optional<GatherPlan> (*)(const Shape&, const Shape&, int64_t, DataType,
                                             DataType);

// Host-resident indices (constants, CPU-computed values) are validated here: the shader would
// clamp a bad one silently, while the CPU kernel fails with the index and the bound.
void check_host_indices(OpRecorder& r, const GatherPlan& plan) {
  const Tensor& indices = r.input(1);
  if (indices.impl()->device) return;  // computed on the device: the shader clamps
  if (!gather_indices_in_range(indices, plan.pc.dim))
    throw RunOnCpu(RunTimeCause::InputValues,
                   "an index is out of range; the CPU kernel reports it");
}

RecordFn gather(int64_t axis, PlanFn plan_of) {
  return [axis, plan_of](OpRecorder& r) {
    const std::optional<GatherPlan> plan =
        plan_of(r.shape(0), r.shape(1), axis, r.dtype(0), r.dtype(1));
    if (!plan)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU gather kernel");
    check_host_indices(r, *plan);
    const Buffer& data = r.buffer(0);
    const Buffer& indices = r.buffer(1);
    const Buffer& out = r.output(0, r.dtype(0), plan->out_shape);
    r.kernel<Gather>().record(r.cmd(), r.arena(), plan->pc, data, indices, out);
  };
}

OpFactory gather_factory(PlanFn plan_of) {
  return [plan_of](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, 1, 1))
      return nullptr;
    const int64_t axis = q.info.attr_int("axis", 0);
    // With both shapes fixed at load time, the plan tells now whether the kernel covers them.
    const Shape *data = static_input_shape(q, 0), *indices = static_input_shape(q, 1);
    if (data && indices && !plan_of(*data, *indices, axis, q.input_types[0], q.input_types[1])) {
      reason = "shapes outside the GPU gather kernel";
      return nullptr;
    }
    return gather(axis, plan_of);
  };
}

// GatherND: batch_dims from opset 12. Host indices are checked like Gather's.
OpFactory gather_nd_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, 1, 1))
      return nullptr;
    const int64_t batch_dims = q.info.opset() >= 12 ? q.info.attr_int("batch_dims", 0) : 0;
    const Shape *data = static_input_shape(q, 0), *indices = static_input_shape(q, 1);
    if (data && indices &&
        !gather_nd_plan(*data, *indices, batch_dims, q.input_types[0], q.input_types[1])) {
      reason = "shapes outside the GPU gather kernel";
      return nullptr;
    }
    return [batch_dims](OpRecorder& r) {
      const std::optional<GatherPlan> plan =
          gather_nd_plan(r.shape(0), r.shape(1), batch_dims, r.dtype(0), r.dtype(1));
      if (!plan)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU gather kernel");
      const Tensor& indices = r.input(1);
      if (!indices.impl()->device && !gather_nd_indices_in_range(indices, r.shape(0), batch_dims))
        throw RunOnCpu(RunTimeCause::InputValues,
                       "an index is out of range; the CPU kernel reports it");
      const Buffer& data = r.buffer(0);
      const Buffer& idx = r.buffer(1);
      const Buffer& out = r.output(0, r.dtype(0), plan->out_shape);
      r.kernel<Gather>().record(r.cmd(), r.arena(), plan->pc, data, idx, out);
    };
  };
}

// Compress: the condition decides the output's shape, so it is a host tensor; the slices it picks
// are gathered along the axis (of the flattened input without one).
RecordFn compress(CompressAttrs attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    if (inputs.size() > 1 && inputs[1].defined() && inputs[1].impl()->device)
      throw RunOnCpu(RunTimeCause::InputValues, "a condition computed on the device");
    const CompressSelection s = resolve_compress(NodeInputs{*node.node, inputs}, attrs);
    const auto count = static_cast<int64_t>(s.picked.size());
    const std::optional<GatherPlan> plan =
        gather_plan(s.source, Shape{count}, s.axis, r.dtype(0), DataType::Int64);
    if (!plan)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU gather kernel");
    const Buffer& data = r.buffer(0);
    const Buffer& indices = r.upload(std::as_bytes(std::span(s.picked)));
    const Buffer& out = r.output(0, r.dtype(0), s.out);
    r.kernel<Gather>().record(r.cmd(), r.arena(), plan->pc, data, indices, out);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(indexing);
void register_indexing_ops(OpTable& t) {
  t.add("Gather", gather_factory(gather_plan));
  t.add("GatherElements", gather_factory(gather_elements_plan));
  t.add("GatherND", gather_nd_factory());
  t.add("Compress", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    return compress(parse_compress_attrs(q.info), NodeRef(q.info));
  });
}

}  // namespace kiln::gpu_compute
