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
