// Subgraphs for graph attributes (If branches, loop bodies, FlexAttention modifiers) in tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/tensor.h"

namespace kiln::testing {

// A subgraph built node by node; names it does not define come from the enclosing graph.
class Body {
 public:
  explicit Body(std::string name) : graph_(std::make_shared<ir::Graph>()) {
    graph_->name = std::move(name);
  }
  Body& input(const std::string& name) {
    graph_->inputs.push_back(ValueInfo{.name = name});
    return *this;
  }
  Body& node(const std::string& op, std::vector<std::string> inputs,
             std::vector<std::string> outputs, std::vector<ir::Attribute> attrs = {}) {
    ir::Node n;
    n.op_type = op;
    n.name = graph_->name + "/" + op + std::to_string(graph_->nodes.size());
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attributes = std::move(attrs);
    graph_->nodes.push_back(std::move(n));
    return *this;
  }
  Body& output(const std::string& name, DataType dtype = DataType::Undefined) {
    graph_->outputs.push_back(ValueInfo{.name = name, .dtype = dtype});
    return *this;
  }
  Body& constant(const std::string& name, const Tensor& value) {
    graph_->initializers[name] = value;
    return *this;
  }
  std::shared_ptr<ir::Graph> build() const { return graph_; }

 private:
  std::shared_ptr<ir::Graph> graph_;
};

inline ir::Attribute graph_attr(const std::string& name, const Body& body) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Graph;
  a.g = body.build();
  return a;
}

}  // namespace kiln::testing
