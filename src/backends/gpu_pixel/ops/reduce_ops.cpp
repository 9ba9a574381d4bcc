// The Reduce family as draws (backends/gpu_pixel/reduce), on the tensor folded to (outer, axis,
// inner) around a contiguous run of reduced axes; reduced axes that kept ones interrupt are
// transposed to the end first. ArgMax and ArgMin fold around their one axis and write int64
// indices into an integer texture (backends/gpu_pixel/arg_reduce).
#include <algorithm>
#include <optional>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/arg_reduce.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/reduce.h"
#include "backends/gpu_pixel/region_copy.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= s[d];
  return n;
}

// The (outer, reduced, inner) fold of `x` when its reduced axes longer than 1 form one run
// (size-1 axes may sit anywhere; no reduced axis at all is a fold of single-element lines);
// nullopt when kept axes interrupt the run.
std::optional<ReduceShape> fold_in_place(const Shape& x, const std::vector<bool>& reduced) {
  size_t first = x.size(), last = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    if (reduced[d] && x[d] != 1) {
      first = std::min(first, d);
      last = d;
    }
  }
  if (first == x.size()) return ReduceShape{x.element_count(), 1, 1};
  for (size_t d = first; d <= last; ++d) {
    if (!reduced[d] && x[d] != 1) return std::nullopt;
  }
  return ReduceShape{product(x, 0, first), product(x, first, last + 1),
                     product(x, last + 1, x.size())};
}

// Reduce axes and output shape come from the definition (opdefs/reduce.h).
OpFactory reduce_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    // Float16 for Max and Min, whose results are input values: the same on the CPU in any order.
    const bool half_too = op == ReduceOp::Max || op == ReduceOp::Min;
    if (!(half_too ? float_or_half_inputs(q, reason, 0, 1) : float_inputs(q, reason, 0, 1)))
      return nullptr;
    const ReduceAttrs attrs = parse_reduce_attrs(q.info, op);
    if (attrs.axes_from_input && !host_inputs(q, 1, reason)) return nullptr;
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const Shape& x = r.shape(0);
      std::vector<int64_t> axes;
      const bool axes_given = attrs.axes_from_input && r.has_input(1);
      if (axes_given) axes = to_int64_vector(r.host(1), "axes");
      const ReducePlan plan = resolve_reduce(
          attrs, x, axes_given ? std::optional(std::span(axes)) : std::nullopt, *node.node);
      const std::vector<bool> reduced = plan.reduced_axes();
      const Shape& y_shape = plan.out;
      if (x.element_count() == 0 && y_shape.element_count() != 0)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "reduction of an empty tensor");
      const TextureTensor& xt = r.texture(0);
      // A float16 maximum or minimum is a float16 value: written as it is.
      TextureTensor& y = r.output(0, y_shape, r.input(0).dtype());
      if (const std::optional<ReduceShape> s = fold_in_place(x, reduced)) {
        r.kernel<Reduce>().record(attrs.op, *s, xt, y);
        return;
      }
      // Kept axes interrupt the reduced ones: a transpose draw puts the kept axes first, in
      // order, and the reduced ones last.
      std::vector<int64_t> perm;
      int64_t kept = 1, reduced_length = 1;
      for (size_t d = 0; d < x.size(); ++d) {
        if (reduced[d]) continue;
        perm.push_back(static_cast<int64_t>(d));
        kept *= x[d];
      }
      for (size_t d = 0; d < x.size(); ++d) {
        if (!reduced[d]) continue;
        perm.push_back(static_cast<int64_t>(d));
        reduced_length *= x[d];
      }
      TextureTensor transposed = r.temporary(x.element_count());
      r.kernel<RegionCopy>().record(transpose_region(x, perm), xt, transposed);
      r.kernel<Reduce>().record(attrs.op, ReduceShape{kept, reduced_length, 1}, transposed, y);
    };
  };
}

// ArgMax / ArgMin of float32 or float16 values (a float16 compares exactly as its float).
OpFactory arg_factory(ReduceOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16};
    if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, 1)) {
      reason = std::string(dtype_name(q.input_types[*k])) + " inputs of an arg-extremum";
      return nullptr;
    }
    const ReduceAttrs attrs = parse_reduce_attrs(q.info, op);
    return [attrs, node = NodeRef(q.info)](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const ReducePlan plan = resolve_reduce(attrs, x, std::nullopt, *node.node);
      const int64_t rank = static_cast<int64_t>(x.size());
      const auto a = static_cast<size_t>(attrs.axes[0] < 0 ? attrs.axes[0] + rank : attrs.axes[0]);
      const FoldedShape folded{product(x, 0, a), x[a], product(x, a + 1, x.size())};
      if (folded.axis_len == 0 && folded.lines() != 0)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "an arg-extremum over an empty axis");
      const TextureTensor& xt = r.texture(0);
      TextureTensor& y = r.output(0, plan.out, DataType::Int64);
      r.kernel<ArgReduce>().record(attrs.op == ReduceOp::ArgMax, attrs.select_last_index, folded,
                                   xt, y);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(reduce);
void register_reduce_ops(OpTable& t) {
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod, ReduceOp::L1,
        ReduceOp::L2, ReduceOp::LogSum, ReduceOp::LogSumExp, ReduceOp::SumSquare}) {
    t.add(op_type_of(op), reduce_factory(op));
  }
  t.add("ArgMax", arg_factory(ReduceOp::ArgMax));
  t.add("ArgMin", arg_factory(ReduceOp::ArgMin));
}

}  // namespace kiln::gpu_pixel
