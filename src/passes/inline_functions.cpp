// Expands calls to functions into their bodies: calls to the model's own functions
// (FunctionProto in the model), and ops kiln has no kernel for whose body the ONNX spec
// defines. The body's values get names unique to the call; attributes the body refers to
// (ref_attr_name) take the caller's value or the function's default.
#include <map>

#include "passes/passes.h"

namespace kiln::passes {

namespace {

// Bodies may call functions themselves; a chain this deep is a recursion.
constexpr int kMaxDepth = 64;

class Inliner {
 public:
  Inliner(ir::Model& model, const SpecFunctionLookup& spec) : model_(model), spec_(spec) {}

  void expand_graph(ir::Graph& graph, int depth) {
    std::vector<ir::Node> expanded;
    expanded.reserve(graph.nodes.size());
    for (auto& node : graph.nodes) {
      for (auto& a : node.attributes) {
        if (a.g) expand_graph(*a.g, depth);
        for (auto& g : a.graphs) expand_graph(*g, depth);
      }
      const ir::Function* fn = function_for(node);
      if (!fn) {
        expanded.push_back(std::move(node));
        continue;
      }
      if (depth >= kMaxDepth)
        throw Error(model_.path + ": " + node.describe() + ": function calls nest deeper than " +
                    std::to_string(kMaxDepth) + " (a recursive function?)");
      ir::Graph body;
      body.nodes = instantiate(*fn, node);
      expand_graph(body, depth + 1);
      for (auto& n : body.nodes) expanded.push_back(std::move(n));
    }
    graph.nodes = std::move(expanded);
  }

 private:
  const ir::Function* function_for(const ir::Node& node) const {
    for (const auto& f : model_.functions) {
      if (f.name == node.op_type && f.domain == ir::canonical_domain(node.domain)) return &f;
    }
    return spec_ ? spec_(node, model_.opset_for(node.domain)) : nullptr;
  }

  // The body's nodes for one call, with names and attributes bound to the caller's.
  std::vector<ir::Node> instantiate(const ir::Function& fn, const ir::Node& call) {
    for (const auto& [domain, version] : fn.opsets) model_.opsets.emplace(domain, version);
    const std::string prefix =
        (call.name.empty() ? call.op_type + "#" + std::to_string(++calls_) : call.name) + "/";
    std::map<std::string, std::string> names;
    for (size_t i = 0; i < fn.inputs.size(); ++i)
      names[fn.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : "";
    for (size_t i = 0; i < fn.outputs.size(); ++i)
      names[fn.outputs[i]] = i < call.outputs.size() ? call.outputs[i] : "";
    auto bind = [&](const std::string& name) {
      if (name.empty()) return name;
      auto it = names.find(name);
      return it != names.end() ? it->second : names.emplace(name, prefix + name).first->second;
    };
    std::vector<ir::Node> nodes;
    for (const ir::Node& templ : fn.nodes) {
      ir::Node n = templ;
      n.name = prefix + (templ.name.empty() ? templ.op_type : templ.name);
      for (auto& in : n.inputs) in = bind(in);
      for (auto& out : n.outputs) out = bind(out);
      n.attributes.clear();
      for (const ir::Attribute& a : templ.attributes) {
        if (a.ref_attr_name.empty()) {
          n.attributes.push_back(a);
          if (a.g) rename_free_names(*n.attributes.back().g, names);
          for (auto& g : n.attributes.back().graphs) rename_free_names(*g, names);
        } else if (const ir::Attribute* value = caller_attribute(fn, call, a.ref_attr_name)) {
          ir::Attribute bound = *value;
          bound.name = a.name;
          n.attributes.push_back(std::move(bound));
        }
      }
      nodes.push_back(std::move(n));
    }
    return nodes;
  }

  static const ir::Attribute* caller_attribute(const ir::Function& fn, const ir::Node& call,
                                               const std::string& name) {
    if (const ir::Attribute* a = call.find_attribute(name)) return a;
    for (const auto& d : fn.attribute_defaults) {
      if (d.name == name) return &d;
    }
    return nullptr;  // neither given nor defaulted: the body node goes without it
  }

  // A subgraph inside a body reads body values by their unbound names.
  static void rename_free_names(ir::Graph& graph, const std::map<std::string, std::string>& names) {
    const std::set<std::string> free = ir::free_names(graph);
    auto rename = [&](std::string& name) {
      if (!free.count(name)) return;
      auto it = names.find(name);
      if (it != names.end()) name = it->second;
    };
    for (auto& n : graph.nodes) {
      for (auto& in : n.inputs) rename(in);
      for (auto& a : n.attributes) {
        if (a.g) rename_free_names(*a.g, names);
        for (auto& g : a.graphs) rename_free_names(*g, names);
      }
    }
    for (auto& out : graph.outputs) rename(out.name);
  }

  ir::Model& model_;
  const SpecFunctionLookup& spec_;
  int calls_ = 0;
};

}  // namespace

void inline_functions(ir::Model& model, const SpecFunctionLookup& spec_function) {
  Inliner(model, spec_function).expand_graph(model.graph, 0);
}

}  // namespace kiln::passes
