#include "passes/graph_rewrite.h"

#include "passes/passes.h"

namespace kiln::passes {

std::set<std::string> used_values(const ir::Graph& graph) {
  std::set<std::string> used;
  for (const auto& node : graph.nodes) {
    for (const auto& in : node.inputs) {
      if (!in.empty()) used.insert(in);
    }
    for (const auto& name : implicit_inputs(node)) used.insert(name);
  }
  for (const auto& out : graph.outputs) used.insert(out.name);
  return used;
}

void rename_reads(ir::Graph& graph, const std::string& from, const std::string& to) {
  for (auto& node : graph.nodes) {
    for (auto& in : node.inputs) {
      if (in == from) in = to;
    }
  }
}

bool is_graph_output(const ir::Graph& graph, const std::string& value) {
  for (const auto& out : graph.outputs) {
    if (out.name == value) return true;
  }
  return false;
}

bool has_subgraph(const ir::Node& node) {
  for (const auto& a : node.attributes) {
    if (a.g || !a.graphs.empty()) return true;
  }
  return false;
}

}  // namespace kiln::passes
