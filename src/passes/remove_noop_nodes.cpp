// Identity and inference-mode Dropout copy their input: their consumers can read the input
// directly. A node whose output is a graph output, or is read from inside a subgraph (whose
// names we do not rewrite), stays.
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {

namespace {

bool is_noop(const ir::Node& node) {
  if (!node.domain.empty() || node.inputs.empty() || node.inputs[0].empty()) return false;
  if (node.op_type == "Identity") return true;
  if (node.op_type == "Dropout") {
    // Only without a mask output and without a training_mode input (which could be true).
    const bool wants_mask = node.outputs.size() > 1 && !node.outputs[1].empty();
    const bool has_training_mode = node.inputs.size() > 2 && !node.inputs[2].empty();
    return !wants_mask && !has_training_mode;
  }
  return false;
}

}  // namespace

void remove_noop_nodes(ir::Graph& graph) {
  std::set<std::string> read_in_subgraphs;
  for (const auto& node : graph.nodes) {
    for (const auto& name : implicit_inputs(node)) read_in_subgraphs.insert(name);
  }
  std::vector<ir::Node> kept;
  kept.reserve(graph.nodes.size());
  for (auto& node : graph.nodes) {
    const std::string& out = node.outputs.empty() ? std::string() : node.outputs[0];
    if (is_noop(node) && !out.empty() && !is_graph_output(graph, out) &&
        !read_in_subgraphs.count(out)) {
      const std::string in = node.inputs[0];
      for (auto& other : graph.nodes) {
        for (auto& i : other.inputs) {
          if (i == out) i = in;
        }
      }
      continue;
    }
    kept.push_back(std::move(node));
  }
  graph.nodes = std::move(kept);
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) remove_noop_nodes(*a.g);
      for (auto& g : a.graphs) remove_noop_nodes(*g);
    }
  }
}

}  // namespace kiln::passes
