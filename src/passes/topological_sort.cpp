#include <deque>
#include <map>
#include <unordered_map>

#include "passes/passes.h"

namespace kiln::passes {

void topological_sort(ir::Graph& graph, const std::string& where,
                      const std::set<std::string>& outer_names) {
  const size_t n = graph.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i) {
    for (const auto& o : graph.nodes[i].outputs) {
      if (o.empty()) continue;
      if (!producer.emplace(o, i).second) {
        throw Error(where + ": value '" + o + "' is produced by two nodes (" +
                    graph.nodes[producer[o]].describe() + " and " + graph.nodes[i].describe() +
                    ")");
      }
    }
  }
  std::set<std::string> available = outer_names;
  for (const auto& in : graph.inputs) available.insert(in.name);
  for (const auto& [name, t] : graph.initializers) available.insert(name);

  std::vector<std::vector<size_t>> consumers(n);
  std::vector<size_t> waiting(n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::set<std::string> reads(graph.nodes[i].inputs.begin(), graph.nodes[i].inputs.end());
    for (const auto& name : implicit_inputs(graph.nodes[i])) reads.insert(name);
    reads.erase("");
    for (const auto& name : reads) {
      auto it = producer.find(name);
      if (it != producer.end()) {
        consumers[it->second].push_back(i);
        ++waiting[i];
      } else if (!available.count(name)) {
        throw Error(where + ": " + graph.nodes[i].describe() + " reads '" + name +
                    "', which is neither a graph input, an initializer nor a node output");
      }
    }
  }
  // Kahn's algorithm, keeping the file's order among ready nodes.
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (size_t c : consumers[i]) {
      if (--waiting[c] == 0) ready.push_back(c);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (waiting[i] > 0) {
        throw Error(where + ": the graph has a cycle through " + graph.nodes[i].describe());
      }
    }
  }
  std::vector<ir::Node> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(sorted);

  for (const auto& out : graph.outputs) {
    if (!producer.count(out.name) && !available.count(out.name)) {
      throw Error(where + ": graph output '" + out.name + "' is not produced by any node");
    }
  }
  // Subgraphs see every name of this graph.
  std::set<std::string> visible = available;
  for (const auto& [name, i] : producer) visible.insert(name);
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      const std::string at = where + ", " + node.describe() + " attribute '" + a.name + "'";
      if (a.g) topological_sort(*a.g, at, visible);
      for (auto& g : a.graphs) topological_sort(*g, at, visible);
    }
  }
}

namespace {
void check_graph_ops(const ir::Graph& g, const ir::Model& model, const NodeCheck& check) {
  for (const auto& node : g.nodes) {
    check(node, model);
    for (const auto& a : node.attributes) {
      if (a.g) check_graph_ops(*a.g, model, check);
      for (const auto& sub : a.graphs) check_graph_ops(*sub, model, check);
    }
  }
}
}  // namespace

void check_operators_supported(const ir::Model& model, const NodeCheck& check) {
  check_graph_ops(model.graph, model, check);
}

}  // namespace kiln::passes
