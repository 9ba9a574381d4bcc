#include "passes/activation_match.h"

#include <limits>
#include <utility>

#include "ir/domains.h"

namespace kiln::passes {
namespace {

// A constant one-element float32 bound of Clip; absent -> `fallback`; nullopt when it is not
// a known constant.
std::optional<float> clip_bound(const ir::Graph& graph, const ir::Node& clip, size_t input,
                                float fallback) {
  if (input >= clip.inputs.size() || clip.inputs[input].empty()) return fallback;
  return float32_scalar(graph, clip.inputs[input]);
}

// The activation of the single-output node `act`, or nullopt.
std::optional<ActivationAttrs> single_node_activation(const ir::Graph& graph, const ir::Node& act,
                                                      int opset) {
  if (act.outputs.size() != 1 || has_subgraph(act)) return std::nullopt;
  ActivationAttrs a;
  if (is_op(act, "Relu")) {
    a.activation = FusedActivation::kRelu;
  } else if (is_op(act, "HardSwish")) {
    a.activation = FusedActivation::kHardSwish;
  } else if (is_op(act, "Sigmoid")) {
    a.activation = FusedActivation::kSigmoid;
  } else if (act.domain == ir::kMicrosoftDomain && act.op_type == "Gelu") {
    a.activation = FusedActivation::kGelu;
  } else if (is_op(act, "Gelu")) {
    const ir::Attribute* approximate = act.find_attribute("approximate");
    const std::string form = approximate ? approximate->s : "none";
    if (form != "none" && form != "tanh") return std::nullopt;  // Gelu's own error, unfused
    a.activation = form == "tanh" ? FusedActivation::kGeluTanh : FusedActivation::kGelu;
  } else if (is_op(act, "Clip")) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::optional<float> lo, hi;
    if (opset < 11) {
      const ir::Attribute* min = act.find_attribute("min");
      const ir::Attribute* max = act.find_attribute("max");
      lo = min ? min->f : std::numeric_limits<float>::lowest();
      hi = max ? max->f : std::numeric_limits<float>::max();
    } else {
      lo = clip_bound(graph, act, 1, -kInf);
      hi = clip_bound(graph, act, 2, kInf);
    }
    if (!lo || !hi) return std::nullopt;
    a.activation = FusedActivation::kClip;
    a.clip_min = *lo;
    a.clip_max = *hi;
  } else {
    return std::nullopt;
  }
  return a;
}

// SiLU as exporters spell it: Mul(x, Sigmoid(x)), x read by exactly those two nodes.
std::optional<ActivationMatch> match_silu(const ir::Graph& graph, const Readers& readers,
                                          const std::string& x) {
  auto it = readers.find(x);
  if (it == readers.end() || it->second.size() != 2 || it->second[0] == kOutsideReader ||
      it->second[1] == kOutsideReader) {
    return std::nullopt;
  }
  size_t sigmoid = it->second[0], mul = it->second[1];
  if (!is_op(graph.nodes[sigmoid], "Sigmoid")) std::swap(sigmoid, mul);
  const ir::Node& s = graph.nodes[sigmoid];
  const ir::Node& m = graph.nodes[mul];
  if (!is_op(s, "Sigmoid") || s.outputs.size() != 1 || !is_op(m, "Mul") || m.inputs.size() != 2 ||
      m.outputs.size() != 1 || only_reader(readers, s.outputs[0]) != mul ||
      other_operand(m, x) != s.outputs[0]) {
    return std::nullopt;
  }
  ActivationMatch match;
  match.attrs.activation = FusedActivation::kSilu;
  match.nodes = {sigmoid, mul};  // Mul reads Sigmoid's output: it comes later
  match.output = m.outputs[0];
  return match;
}

}  // namespace

std::optional<ActivationMatch> match_activation(const ir::Graph& graph, const Readers& readers,
                                                const std::string& value, int opset) {
  const std::optional<size_t> next = only_reader(readers, value);
  if (!next) return match_silu(graph, readers, value);
  const ir::Node& act = graph.nodes[*next];
  const std::optional<ActivationAttrs> attrs = single_node_activation(graph, act, opset);
  if (!attrs) return std::nullopt;
  return ActivationMatch{*attrs, {*next}, act.outputs[0]};
}

std::vector<ir::Attribute> activation_attributes(const ActivationAttrs& a) {
  std::vector<ir::Attribute> attributes;
  if (a.activation == FusedActivation::kNone) return attributes;
  attributes.push_back(string_attribute("activation", fused_activation_name(a.activation)));
  if (a.activation == FusedActivation::kClip) {
    attributes.push_back(float_attribute("clip_min", a.clip_min));
    attributes.push_back(float_attribute("clip_max", a.clip_max));
  }
  return attributes;
}

}  // namespace kiln::passes
