// Keeps only the nodes some graph output depends on (directly, or through subgraph reads),
// and the initializers still read.
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {

void remove_dead_nodes(ir::Graph& graph) {
  std::set<std::string> needed;
  for (const auto& out : graph.outputs) needed.insert(out.name);
  std::vector<bool> keep(graph.nodes.size(), false);
  for (size_t i = graph.nodes.size(); i-- > 0;) {  // reverse topological order
    const ir::Node& node = graph.nodes[i];
    for (const auto& out : node.outputs) {
      if (!out.empty() && needed.count(out)) keep[i] = true;
    }
    if (!keep[i]) continue;
    for (const auto& in : node.inputs) {
      if (!in.empty()) needed.insert(in);
    }
    for (const auto& name : implicit_inputs(node)) needed.insert(name);
  }
  std::vector<ir::Node> kept;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  // Optional outputs nobody reads become empty names, so kernels can skip them.
  for (auto& node : graph.nodes) {
    for (size_t k = 1; k < node.outputs.size(); ++k) {
      if (!needed.count(node.outputs[k])) node.outputs[k].clear();
    }
  }
  std::set<std::string> graph_inputs;
  for (const auto& in : graph.inputs) graph_inputs.insert(in.name);
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();) {
    // An initializer that is also a graph input is that input's default: it stays.
    const bool keep_it = needed.count(it->first) || graph_inputs.count(it->first);
    it = keep_it ? std::next(it) : graph.initializers.erase(it);
  }
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) remove_dead_nodes(*a.g);
      for (auto& g : a.graphs) remove_dead_nodes(*g);
    }
  }
}

}  // namespace kiln::passes
