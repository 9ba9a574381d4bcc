// Reductions on the GPU (shaders/reduce.comp): the Reduce* family and ArgMax / ArgMin, a
// workgroup per output element. Any set of axes runs natively: the kernel addresses reduced
// dimensions through their strides, so non-contiguous axes need no transpose first. The axes
// come from the attribute (older opsets) or from a CPU-resident second input.
#include "backends/vulkan/ops/op_table.h"
#include "backends/vulkan/reduce.h"
#include "core/element_storage.h"

namespace kiln::vulkan {
namespace {

// The output of reducing `x` over `reduced`; kept reduced dimensions have extent 1.
Shape reduced_shape(const Shape& x, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(x[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

void record_reduce(OpRecorder& r, const std::vector<bool>& reduced, ReduceOp op, bool keepdims,
                   bool select_last, DataType out_dtype) {
  const Shape& x = r.shape(0);
  const Shape y_shape = reduced_shape(x, reduced, keepdims);
  const std::optional<ReduceProblem> p = reduce_problem(x, reduced, op, select_last);
  if (!p) throw RunOnCpu("reduction layout outside the GPU kernel");
  // Reducing an empty input into a non-empty output (the identity element) stays on the CPU.
  if (x.element_count() == 0 && y_shape.element_count() != 0)
    throw RunOnCpu("reduction of an empty input");
  const Buffer& xb = r.buffer(0);
  const Buffer& y = r.output(0, out_dtype, y_shape);
  r.add_work(static_cast<uint64_t>(x.element_count()));
  r.kernel<Reduce>().record(r.cmd(), r.arena(), *p, xb, y);
}

RecordFn reduce(ReduceOp op, bool axes_from_input, Shape attr_axes, bool keepdims,
                bool noop_with_empty_axes) {
  return [=](OpRecorder& r) {
    Shape axes = attr_axes;
    if (axes_from_input && r.has_input(1)) read_int_list(r.input(1), axes, "Reduce axes");
    const int64_t rank = static_cast<int64_t>(r.shape(0).size());
    // No axes reduces everything, or with noop_with_empty_axes nothing: every element is then
    // its own line (ReduceSumSquare still squares it).
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty() && !noop_with_empty_axes);
    for (int64_t a : axes) {
      if (rank == 0 && (a == 0 || a == -1)) continue;
      reduced[static_cast<size_t>(non_negative_axis(a, rank))] = true;
    }
    record_reduce(r, reduced, op, keepdims, false, DataType::Float32);
  };
}

OpFactory reduce_factory(ReduceOp op, int axes_input_opset) {
  return [=](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    const bool axes_from_input = q.info.opset() >= axes_input_opset;
    if (axes_from_input && q.info.has_input(1) && !q.input_on_cpu[1]) {
      reason = "axes computed on the device";
      return nullptr;
    }
    Shape attr_axes;
    if (!axes_from_input) {
      for (int64_t a : q.info.attr_ints("axes")) attr_axes.push_back(a);
    }
    return reduce(op, axes_from_input, attr_axes, q.info.attr_int("keepdims", 1) != 0,
                  q.info.attr_int("noop_with_empty_axes", 0) != 0);
  };
}

OpFactory arg_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const int64_t axis = q.info.attr_int("axis", 0);
    const bool keepdims = q.info.attr_int("keepdims", 1) != 0;
    const bool select_last = q.info.attr_int("select_last_index", 0) != 0;
    return [=](OpRecorder& r) {
      const int64_t rank = static_cast<int64_t>(r.shape(0).size());
      const int64_t a = non_negative_axis(axis, rank);
      if (r.shape(0)[a] == 0) throw RunOnCpu("ArgMax / ArgMin over an empty axis");
      std::vector<bool> reduced(static_cast<size_t>(rank), false);
      reduced[static_cast<size_t>(a)] = true;
      record_reduce(r, reduced, op, keepdims, select_last, DataType::Int64);
    };
  };
}

}  // namespace

void register_reduce_ops(OpTable& t) {
  // ReduceSum takes its axes as an input from opset 13, the others from opset 18.
  t.add("ReduceSum", reduce_factory(ReduceOp::Sum, 13));
  t.add("ReduceMean", reduce_factory(ReduceOp::Mean, 18));
  t.add("ReduceMax", reduce_factory(ReduceOp::Max, 18));
  t.add("ReduceMin", reduce_factory(ReduceOp::Min, 18));
  t.add("ReduceProd", reduce_factory(ReduceOp::Prod, 18));
  t.add("ReduceL1", reduce_factory(ReduceOp::L1, 18));
  t.add("ReduceL2", reduce_factory(ReduceOp::L2, 18));
  t.add("ReduceSumSquare", reduce_factory(ReduceOp::SumSquare, 18));
  t.add("ReduceLogSum", reduce_factory(ReduceOp::LogSum, 18));
  t.add("ReduceLogSumExp", reduce_factory(ReduceOp::LogSumExp, 18));
  t.add("ArgMax", arg_factory(ReduceOp::ArgMax));
  t.add("ArgMin", arg_factory(ReduceOp::ArgMin));
}

}  // namespace kiln::vulkan
