// Reverse-mode rules of the ops kiln can differentiate. Binary element-wise ops broadcast, so
// each input's gradient is summed back to that input's shape (NodeEmitter::sum_like).
#include "passes/gradient_rules.h"

#include <map>

#include "opdefs/training_defs.h"
#include "passes/graph_rewrite.h"

namespace kiln::passes::gradient {

std::string NodeEmitter::fresh(const std::string& stem) {
  std::string name = prefix_ + stem;
  for (int k = 1; taken_.count(name); ++k) name = prefix_ + stem + "_" + std::to_string(k);
  taken_.insert(name);
  return name;
}

std::string NodeEmitter::add(const std::string& op_type, std::vector<std::string> inputs,
                             std::vector<ir::Attribute> attributes, const std::string& domain) {
  std::string out = fresh(op_type + "_out");
  add_named(op_type, std::move(inputs), {out}, std::move(attributes), domain);
  return out;
}

void NodeEmitter::add_named(const std::string& op_type, std::vector<std::string> inputs,
                            std::vector<std::string> outputs, std::vector<ir::Attribute> attributes,
                            const std::string& domain) {
  ir::Node n;
  n.name = fresh(op_type);
  n.op_type = op_type;
  n.domain = domain;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attributes = std::move(attributes);
  nodes_.push_back(std::move(n));
}

std::string NodeEmitter::scalar_like(float value, const std::string& like) {
  ir::Attribute a;
  a.name = "value";
  a.type = ir::Attribute::Type::Tensor;
  a.t = Tensor::scalar<float>(value);
  // The element type of `like` is known only once types are inferred, after this pass.
  return add("CastLike", {add("Constant", {}, {a}), like});
}

std::string NodeEmitter::filled_like(float value, const std::string& like) {
  return add("Expand", {scalar_like(value, like), add("Shape", {like})});
}

std::string NodeEmitter::sum_like(const std::string& g, const std::string& like) {
  return add(kSumToShapeOp, {g, add("Shape", {like})}, {}, kKilnDomain);
}

namespace {

using Grads = std::vector<std::string>;

Grads add_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
               NodeEmitter& e) {
  Grads g(2);
  if (needs[0]) g[0] = e.sum_like(dy, n.inputs[0]);
  if (needs[1]) g[1] = e.sum_like(dy, n.inputs[1]);
  return g;
}

Grads sub_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
               NodeEmitter& e) {
  Grads g(2);
  if (needs[0]) g[0] = e.sum_like(dy, n.inputs[0]);
  if (needs[1]) g[1] = e.sum_like(e.add("Neg", {dy}), n.inputs[1]);
  return g;
}

// d(a * b) = b da + a db
Grads mul_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
               NodeEmitter& e) {
  Grads g(2);
  if (needs[0]) g[0] = e.sum_like(e.add("Mul", {dy, n.inputs[1]}), n.inputs[0]);
  if (needs[1]) g[1] = e.sum_like(e.add("Mul", {dy, n.inputs[0]}), n.inputs[1]);
  return g;
}

// y = a / b: dy/da = 1 / b, dy/db = -a / b^2 = -y / b.
Grads div_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
               NodeEmitter& e) {
  Grads g(2);
  if (needs[0]) g[0] = e.sum_like(e.add("Div", {dy, n.inputs[1]}), n.inputs[0]);
  if (needs[1]) {
    const std::string y_over_b = e.add("Div", {n.outputs[0], n.inputs[1]});
    g[1] = e.sum_like(e.add("Neg", {e.add("Mul", {dy, y_over_b})}), n.inputs[1]);
  }
  return g;
}

Grads neg_rule(const ir::Node&, const std::string& dy, const std::vector<bool>& needs,
               NodeEmitter& e) {
  return {needs[0] ? e.add("Neg", {dy}) : ""};
}

Grads identity_rule(const ir::Node&, const std::string& dy, const std::vector<bool>&,
                    NodeEmitter&) {
  return {dy};
}

// The gradient passes where x > 0 (taking 0 as the derivative at 0, as the usual frameworks do).
Grads relu_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
                NodeEmitter& e) {
  if (!needs[0]) return {""};
  const std::string zero = e.scalar_like(0.0f, dy);
  const std::string positive = e.add("Greater", {n.inputs[0], e.scalar_like(0.0f, n.inputs[0])});
  return {e.add("Where", {positive, dy, zero})};
}

// y[..., m, n] = sum_k a[..., m, k] b[..., k, n] for operands of rank >= 2, batch dimensions
// broadcasting: da = dy b^T and db = a^T dy, summed back over the broadcast batch dimensions.
// Einsum's ellipsis covers any batch rank, which is unknown before types are inferred.
Grads matmul_rule(const ir::Node& n, const std::string& dy, const std::vector<bool>& needs,
                  NodeEmitter& e) {
  Grads g(2);
  if (needs[0]) {
    const std::string da =
        e.add("Einsum", {dy, n.inputs[1]}, {string_attribute("equation", "...mn,...kn->...mk")});
    g[0] = e.sum_like(da, n.inputs[0]);
  }
  if (needs[1]) {
    const std::string db =
        e.add("Einsum", {n.inputs[0], dy}, {string_attribute("equation", "...mk,...mn->...kn")});
    g[1] = e.sum_like(db, n.inputs[1]);
  }
  return g;
}

}  // namespace

const BackwardRule* find_rule(const ir::Node& node) {
  static const std::map<std::string, BackwardRule> rules = {
      {"Add", add_rule}, {"Sub", sub_rule},           {"Mul", mul_rule},   {"Div", div_rule},
      {"Neg", neg_rule}, {"Identity", identity_rule}, {"Relu", relu_rule}, {"MatMul", matmul_rule},
  };
  if (!node.domain.empty() && node.domain != "ai.onnx") return nullptr;
  if (node.outputs.size() != 1) return nullptr;
  auto it = rules.find(node.op_type);
  if (it == rules.end()) return nullptr;
  // Binary rules read both inputs.
  const size_t arity =
      (node.op_type == "Neg" || node.op_type == "Identity" || node.op_type == "Relu") ? 1 : 2;
  return node.inputs.size() == arity ? &it->second : nullptr;
}

}  // namespace kiln::passes::gradient
