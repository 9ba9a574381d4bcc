// Reverse-mode rules for the Gradient expansion (expand_gradient.cpp): for one forward node and
// the gradient of its output, the nodes that compute the gradients of its inputs.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::passes::gradient {

// Collects the nodes one Gradient expansion adds, giving every node and value a fresh name.
class NodeEmitter {
 public:
  // `taken`: every value and node name already in the graph; the emitter adds its own.
  NodeEmitter(std::string prefix, std::set<std::string>& taken)
      : prefix_(std::move(prefix)), taken_(taken) {}

  // A fresh name starting with the prefix.
  std::string fresh(const std::string& stem);
  // Adds a node with one output and returns the output's name.
  std::string add(const std::string& op_type, std::vector<std::string> inputs,
                  std::vector<ir::Attribute> attributes = {}, const std::string& domain = "");
  // Adds a node writing the given output names.
  void add_named(const std::string& op_type, std::vector<std::string> inputs,
                 std::vector<std::string> outputs, std::vector<ir::Attribute> attributes = {},
                 const std::string& domain = "");
  void add_node(ir::Node node) { nodes_.push_back(std::move(node)); }

  // A scalar `value` of `like`'s element type.
  std::string scalar_like(float value, const std::string& like);
  // A tensor of `like`'s type and shape filled with `value`.
  std::string filled_like(float value, const std::string& like);
  // `g` summed over the axes along which `like` was broadcast: the gradient of `like` when
  // `g` is the gradient of a broadcasting op's output.
  std::string sum_like(const std::string& g, const std::string& like);

  std::vector<ir::Node>& nodes() { return nodes_; }

 private:
  std::string prefix_;
  std::set<std::string>& taken_;
  std::vector<ir::Node> nodes_;
};

// The gradients of a node's inputs, given `node` (its inputs and output named by their forward
// values), `dy` (the gradient of its output) and which inputs need one. Entries of inputs that
// need none, or through which no gradient flows, are empty.
using BackwardRule = std::function<std::vector<std::string>(
    const ir::Node& node, const std::string& dy, const std::vector<bool>& needs, NodeEmitter&)>;

// The rule for a single-output node's op; nullptr when kiln cannot differentiate it.
const BackwardRule* find_rule(const ir::Node& node);

}  // namespace kiln::passes::gradient
