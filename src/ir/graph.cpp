#include "ir/graph.h"

namespace kiln::ir {

const char* attribute_type_name(Attribute::Type t) {
  switch (t) {
    case Attribute::Type::Float:
      return "float";
    case Attribute::Type::Int:
      return "int";
    case Attribute::Type::String:
      return "string";
    case Attribute::Type::Tensor:
      return "tensor";
    case Attribute::Type::Graph:
      return "graph";
    case Attribute::Type::Floats:
      return "floats";
    case Attribute::Type::Ints:
      return "ints";
    case Attribute::Type::Strings:
      return "strings";
    case Attribute::Type::Tensors:
      return "tensors";
    case Attribute::Type::Graphs:
      return "graphs";
    case Attribute::Type::TypeProto:
      return "type_proto";
    case Attribute::Type::TypeProtos:
      return "type_protos";
    case Attribute::Type::Undefined:
      break;
  }
  return "undefined";
}

const Attribute* Node::find_attribute(const std::string& attr_name) const {
  for (const auto& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

std::string Node::describe() const {
  std::string op = domain.empty() ? op_type : domain + "::" + op_type;
  if (!name.empty()) return op + " node '" + name + "'";
  if (!outputs.empty() && !outputs[0].empty()) return op + " node (output '" + outputs[0] + "')";
  return op + " node";
}

const ValueInfo* Graph::find_value_info(const std::string& value) const {
  for (const auto* list : {&inputs, &outputs, &value_infos}) {
    for (const auto& v : *list) {
      if (v.name == value) return &v;
    }
  }
  return nullptr;
}

int Model::opset_for(const std::string& domain) const {
  auto it = opsets.find(canonical_domain(domain));
  return it == opsets.end() ? 0 : it->second;
}

namespace {

void collect_free_names(const Graph& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& in : g.inputs) defined.insert(in.name);
  for (const auto& [name, t] : g.initializers) defined.insert(name);
  for (const auto& n : g.nodes) {
    for (const auto& o : n.outputs) defined.insert(o);
  }
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) {
      if (!i.empty() && !defined.count(i)) out.insert(i);
    }
    for (const auto& name : implicit_inputs(n)) {
      if (!defined.count(name)) out.insert(name);
    }
  }
  for (const auto& o : g.outputs) {
    if (!defined.count(o.name)) out.insert(o.name);
  }
}

}  // namespace

std::set<std::string> free_names(const Graph& graph) {
  std::set<std::string> names;
  collect_free_names(graph, names);
  return names;
}

std::set<std::string> implicit_inputs(const Node& node) {
  std::set<std::string> names;
  for (const auto& a : node.attributes) {
    if (a.g) collect_free_names(*a.g, names);
    for (const auto& sub : a.graphs) collect_free_names(*sub, names);
  }
  return names;
}

}  // namespace kiln::ir
