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

}  // namespace kiln::ir
