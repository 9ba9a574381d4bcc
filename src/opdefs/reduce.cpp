#include "opdefs/reduce.h"

#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

constexpr std::pair<const char*, ReduceOp> kReduceOps[] = {
    {"ReduceSum", ReduceOp::Sum},       {"ReduceMean", ReduceOp::Mean},
    {"ReduceMax", ReduceOp::Max},       {"ReduceMin", ReduceOp::Min},
    {"ReduceProd", ReduceOp::Prod},     {"ReduceL1", ReduceOp::L1},
    {"ReduceL2", ReduceOp::L2},         {"ReduceSumSquare", ReduceOp::SumSquare},
    {"ReduceLogSum", ReduceOp::LogSum}, {"ReduceLogSumExp", ReduceOp::LogSumExp},
    {"ArgMax", ReduceOp::ArgMax},       {"ArgMin", ReduceOp::ArgMin},
};

bool is_arg(ReduceOp op) { return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin; }

// Shape inference: the plan over the known dims (symbolic ones are kept or dropped as the
// plan says; a rank is all the plan needs).
std::vector<ValueInfo> reduce_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const ReduceOp op = *reduce_op_named(ctx.node().op_type);
  const DataType dtype = is_arg(op) ? DataType::Int64 : x->dtype;
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(dtype)};
  const ReduceAttrs attrs = parse_reduce_attrs(ctx.info(), op);
  std::optional<std::vector<int64_t>> axes;
  if (attrs.axes_from_input && ctx.info().has_input(1)) {
    axes = ctx.constant_ints(1);
    if (!axes) return {dtype_only(dtype)};
  }
  Shape stand_in;
  for (const Dim& d : *xs) stand_in.push_back(d.is_fixed() ? d.value : 2);
  const ReducePlan plan = resolve_reduce(attrs, stand_in, axes, ctx.node());
  std::vector<Dim> out;
  for (size_t d = 0; d < xs->size(); ++d) {
    if (!plan.reduced[d]) {
      out.push_back((*xs)[d]);
    } else if (attrs.keepdims) {
      out.push_back(fixed_dim(1));
    }
  }
  return {tensor_type(dtype, out)};
}

}  // namespace

std::optional<ReduceOp> reduce_op_named(const std::string& op_type) {
  return find_op(kReduceOps, op_type);
}

const char* op_type_of(ReduceOp op) { return find_op_type(kReduceOps, op); }

int reduce_axes_input_opset(ReduceOp op) { return op == ReduceOp::Sum ? 13 : 18; }

ReduceAttrs parse_reduce_attrs(const NodeInfo& info, ReduceOp op) {
  ReduceAttrs a;
  a.op = op;
  a.keepdims = info.attr_int("keepdims", 1) != 0;
  if (is_arg(op)) {
    a.axes = {info.attr_int("axis", 0)};
    a.select_last_index = info.attr_int("select_last_index", 0) != 0;
    return a;
  }
  a.noop_with_empty_axes = info.attr_int("noop_with_empty_axes", 0) != 0;
  const int axes_input_opset = reduce_axes_input_opset(op);
  a.axes_from_input = info.opset() >= axes_input_opset;
  if (!a.axes_from_input) {
    a.axes = info.attr_ints("axes");
  } else if (info.has_attr("axes")) {
    info.fail("takes its axes as an input from opset " + std::to_string(axes_input_opset) +
              ", not as an attribute");
  }
  return a;
}

bool ReducePlan::reduces_any() const {
  for (int64_t r : reduced) {
    if (r) return true;
  }
  return false;
}

ReducePlan resolve_reduce(const ReduceAttrs& attrs, const Shape& x,
                          std::optional<std::span<const int64_t>> axes_input,
                          const ir::Node& node) {
  const int64_t rank = static_cast<int64_t>(x.size());
  const std::span<const int64_t> axes = axes_input ? *axes_input : std::span(attrs.axes);
  ReducePlan plan;
  if (is_arg(attrs.op) && rank == 0) fail_at(node, "needs an input of rank >= 1");
  plan.reduced.resize(x.size(), axes.empty() && !attrs.noop_with_empty_axes ? 1 : 0);
  for (int64_t a : axes) {
    // A scalar has no axes to name; accept 0 / -1 for it as ONNX Runtime does.
    if (rank == 0 && (a == 0 || a == -1)) continue;
    if (a < -rank || a >= rank) {
      fail_at(node, "axis " + std::to_string(a) + " is out of range for an input of rank " +
                        std::to_string(rank));
    }
    plan.reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = 1;
  }
  for (size_t d = 0; d < x.size(); ++d) {
    if (!plan.reduced[d]) {
      plan.out.push_back(x[d]);
    } else if (attrs.keepdims) {
      plan.out.push_back(1);
    }
  }
  return plan;
}

KILN_OP_DEFS(reduce);
void define_reduce_ops(OpDefs& defs) {
  for (const auto& [name, op] : kReduceOps) {
    OpDef& def = defs.define(name);
    def.infer = reduce_rule;
    if (!is_arg(op)) def.shape_inputs = {{reduce_axes_input_opset(op), {1}}};
  }
}

}  // namespace kiln
