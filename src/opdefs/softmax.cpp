#include "opdefs/softmax.h"

#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

constexpr std::pair<const char*, SoftmaxOp> kSoftmaxOps[] = {
    {"Softmax", SoftmaxOp::Softmax},
    {"LogSoftmax", SoftmaxOp::LogSoftmax},
    {"Hardmax", SoftmaxOp::Hardmax},
};

}  // namespace

std::optional<SoftmaxOp> softmax_op_named(const std::string& op_type) {
  return find_op(kSoftmaxOps, op_type);
}

const char* op_type_of(SoftmaxOp op) { return find_op_type(kSoftmaxOps, op); }

SoftmaxAttrs parse_softmax_attrs(const NodeInfo& info, SoftmaxOp op) {
  SoftmaxAttrs a;
  a.op = op;
  a.flatten = info.opset() < 13;
  a.axis = info.attr_int("axis", a.flatten ? 1 : -1);
  return a;
}

SoftmaxLines resolve_softmax(const SoftmaxAttrs& attrs, const Shape& x, const ir::Node& node) {
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t upper = attrs.flatten ? rank : rank - 1;
  if (attrs.axis < -rank || attrs.axis > upper) {
    fail_at(node, "axis " + std::to_string(attrs.axis) + " is out of range for an input of rank " +
                      std::to_string(rank));
  }
  const int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  SoftmaxLines v;
  for (int64_t d = 0; d < axis; ++d) v.outer *= x[d];
  if (attrs.flatten) {
    for (int64_t d = axis; d < rank; ++d) v.n *= x[d];
  } else {
    v.n = x[axis];
    for (int64_t d = axis + 1; d < rank; ++d) v.inner *= x[d];
  }
  return v;
}

LossAttrs parse_loss_attrs(const NodeInfo& info) {
  LossAttrs a;
  const std::string reduction = info.attr_string("reduction", "mean");
  if (reduction == "none") {
    a.reduction = LossReduction::None;
  } else if (reduction == "sum") {
    a.reduction = LossReduction::Sum;
  } else if (reduction == "mean") {
    a.reduction = LossReduction::Mean;
  } else {
    info.fail("reduction must be 'none', 'sum' or 'mean', got '" + reduction + "'");
  }
  a.has_ignore_index = info.has_attr("ignore_index");
  a.ignore_index = info.attr_int("ignore_index", 0);
  return a;
}

std::optional<LossGeometry> loss_geometry(const Shape& x, const Shape& target, const Shape* weight,
                                          std::string& error) {
  if (x.size() < 2) {
    error = "input must have shape [N, C, d1, ..., dk], got " + x.to_string();
    return std::nullopt;
  }
  bool shapes_match = target.size() == x.size() - 1 && target[0] == x[0];
  for (size_t d = 1; shapes_match && d < target.size(); ++d) shapes_match = target[d] == x[d + 1];
  if (!shapes_match) {
    error = "target shape " + target.to_string() + " does not fit input shape " + x.to_string() +
            " (expected [N, d1, ..., dk])";
    return std::nullopt;
  }
  if (weight && (weight->size() != 1 || (*weight)[0] != x[1])) {
    error =
        "weight must have shape [C] = [" + std::to_string(x[1]) + "], got " + weight->to_string();
    return std::nullopt;
  }
  LossGeometry g;
  g.batch = x[0];
  g.classes = x[1];
  for (size_t d = 2; d < x.size(); ++d) g.spatial *= x[d];
  return g;
}

namespace {

// NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...]) and SoftmaxCrossEntropyLoss
// (scores, labels): the loss per target element (reduction "none") or a scalar; the latter's
// optional log_prob has the scores' type and shape.
std::vector<ValueInfo> loss_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* target = ctx.shape(1);
  const bool per_element = ctx.info().attr_string("reduction", "mean") == "none";
  std::vector<ValueInfo> out;
  if (!per_element) {
    out.push_back(tensor_type(x->dtype, {}));
  } else {
    out.push_back(target ? tensor_type(x->dtype, *target) : dtype_only(x->dtype));
  }
  if (ctx.node().op_type == "SoftmaxCrossEntropyLoss") out.push_back(*x);
  return out;
}

}  // namespace

KILN_OP_DEFS(softmax);
void define_softmax_ops(OpDefs& defs) {
  for (const auto& [name, op] : kSoftmaxOps) defs.define(name).infer = same_as_input0;
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    defs.define(op).infer = loss_rule;
  }
}

}  // namespace kiln
