#include <set>
#include <unordered_map>

#include "passes/passes.h"

namespace kiln::passes {
namespace {

ValueInfo declared_type(const std::unordered_map<std::string, ValueInfo>& types,
                        const std::string& name) {
  if (auto it = types.find(name); it != types.end()) return it->second;
  ValueInfo unknown;
  unknown.name = name;
  unknown.kind = ValueInfo::Kind::Unknown;
  return unknown;
}

}  // namespace

void expose_values(ir::Model& model, const std::vector<std::string>& names) {
  if (names.empty()) return;
  ir::Graph& graph = model.graph;
  std::unordered_map<std::string, ValueInfo> types;
  for (const auto* list : {&graph.value_infos, &graph.outputs, &graph.inputs}) {
    for (const ValueInfo& v : *list) types[v.name] = v;
  }
  std::set<std::string> exposed;
  for (const ValueInfo& out : graph.outputs) exposed.insert(out.name);
  auto expose = [&](const std::string& name) {
    if (name.empty() || !exposed.insert(name).second) return;
    graph.outputs.push_back(declared_type(types, name));
    model.outputs.push_back(graph.outputs.back());
  };
  std::set<std::string> known;
  for (const ir::Node& node : graph.nodes) known.insert(node.outputs.begin(), node.outputs.end());
  for (const ValueInfo& in : graph.inputs) known.insert(in.name);
  for (const auto& [name, t] : graph.initializers) known.insert(name);
  for (const std::string& name : names) {
    if (name == "*") {
      for (const ir::Node& node : graph.nodes) {
        for (const std::string& out : node.outputs) expose(out);
      }
      continue;
    }
    if (!known.count(name)) {
      throw Error(model.path + ": LoadOptions::extra_outputs names '" + name +
                  "', which is not a value of the optimized graph (a pass may have folded or "
                  "fused it away: load with optimize = false to keep every value)");
    }
    expose(name);
  }
}

}  // namespace kiln::passes
