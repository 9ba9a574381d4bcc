// Reductions on the GPU (shaders/reduce.comp): the Reduce* family and ArgMax / ArgMin, a
// workgroup per output element (ReduceSum, ReduceProd, ReduceMax and ReduceMin of int32 and
// int64, and ReduceMax and ReduceMin of bool: shaders/reduce_int.comp, an invocation per output
// element), over the axes their definition (opdefs/reduce.h) resolves. Any set of axes runs
// natively: the kernel addresses reduced dimensions through their strides, so non-contiguous
// axes need no transpose first.
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/reduce.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

void record_reduce(OpRecorder& r, const ReducePlan& plan, const ReduceAttrs& attrs,
                   DataType out_dtype) {
  const Shape& x = r.shape(0);
  const std::optional<ReduceProblem> p =
      reduce_problem(x, plan.reduced_axes(), attrs.op, attrs.select_last_index);
  if (!p)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "reduction layout outside the GPU kernel");
  // An empty input reduces to the identity element (the shader's empty lines), except for
  // ArgMax / ArgMin, whose callers keep empty axes on the CPU.
  const Buffer& xb = r.buffer(0);
  const Buffer& y = r.output(0, out_dtype, plan.out);
  r.add_work(static_cast<uint64_t>(x.element_count()));
  r.kernel<Reduce>().record(r.cmd(), r.arena(), *p, xb, y);
}

// The integer reductions, wrapping as the CPU's do, and Max / Min of bool (any / all).
void record_integer_reduce(OpRecorder& r, const ReducePlan& plan, const ReduceAttrs& attrs) {
  const Shape& x = r.shape(0);
  if (x.element_count() == 0)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "reduction of an empty input");
  const std::optional<ReduceProblem> p = reduce_problem(x, plan.reduced_axes(), attrs.op);
  if (!p)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "reduction layout outside the GPU kernel");
  const Buffer& xb = r.buffer(0);
  const Buffer& y = r.output(0, r.dtype(0), plan.out);
  r.add_work(static_cast<uint64_t>(x.element_count()));
  r.kernel<ReduceInt>().record(r.cmd(), r.arena(), *p, r.dtype(0), xb, y);
}

// Whether the integer kernel reduces `dtype` with `op`.
bool has_integer_kernel(ReduceOp op, DataType dtype) {
  if (dtype == DataType::Bool) return op == ReduceOp::Max || op == ReduceOp::Min;
  return (dtype == DataType::Int32 || dtype == DataType::Int64) &&
         (op == ReduceOp::Sum || op == ReduceOp::Prod || op == ReduceOp::Max ||
          op == ReduceOp::Min);
}

OpFactory reduce_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool integer = !q.input_types.empty() && has_integer_kernel(op, q.input_types[0]);
    if (!integer && !inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    const ReduceAttrs attrs = parse_reduce_attrs(q.info, op);
    if (attrs.axes_from_input && q.info.has_input(1) && !q.input_on_cpu[1]) {
      reason = "axes computed on the device";
      return nullptr;
    }
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      std::vector<int64_t> axes;
      const bool axes_given = attrs.axes_from_input && r.has_input(1);
      if (axes_given) axes = to_int64_vector(r.input(1), "axes");
      const ReducePlan plan =
          resolve_reduce(attrs, r.shape(0),
                         axes_given ? std::optional(std::span(axes)) : std::nullopt, *node.node);
      const DataType dt = r.dtype(0);
      if (dt == DataType::Float32) {
        record_reduce(r, plan, attrs, DataType::Float32);
      } else if (has_integer_kernel(attrs.op, dt)) {
        record_integer_reduce(r, plan, attrs);
      } else {
        throw RunOnCpu(RunTimeCause::InputKind, "an input type the GPU kernel lacks");
      }
    };
  };
}

OpFactory arg_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const ReduceAttrs attrs = parse_reduce_attrs(q.info, op);
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const ReducePlan plan = resolve_reduce(attrs, r.shape(0), std::nullopt, *node.node);
      for (size_t d = 0; d < plan.reduced.size(); ++d) {
        if (plan.reduced[d] && r.shape(0)[d] == 0)
          throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "ArgMax / ArgMin over an empty axis");
      }
      record_reduce(r, plan, attrs, DataType::Int64);
    };
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(reduce);
void register_reduce_ops(OpTable& t) {
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod, ReduceOp::L1,
        ReduceOp::L2, ReduceOp::SumSquare, ReduceOp::LogSum, ReduceOp::LogSumExp}) {
    t.add(op_type_of(op), reduce_factory(op));
  }
  t.add("ArgMax", arg_factory(ReduceOp::ArgMax));
  t.add("ArgMin", arg_factory(ReduceOp::ArgMin));
}

}  // namespace kiln::gpu_compute
