#include "shape_coverage.h"

#include <memory>

#include "passes/passes.h"

namespace kiln::cli {

namespace {

// Gives `graph` copies of its subgraphs, so that inference on it leaves the original alone, and
// drops declared value types so that only the rules' predictions remain.
void detach(ir::Graph& graph) {
  graph.value_infos.clear();
  for (ir::Node& node : graph.nodes) {
    for (ir::Attribute& a : node.attributes) {
      if (a.g) {
        a.g = std::make_shared<ir::Graph>(*a.g);
        detach(*a.g);
      }
      for (auto& g : a.graphs) {
        if (!g) continue;
        g = std::make_shared<ir::Graph>(*g);
        detach(*g);
      }
    }
  }
}

// The inferred type of `value`: inference writes every value it typed into value_infos (graph
// outputs included, while graph.outputs keeps the file's declarations).
const ValueInfo* inferred(const ir::Graph& graph, const std::string& value) {
  for (const ValueInfo& v : graph.value_infos) {
    if (v.name == value) return &v;
  }
  return nullptr;
}

void count(const ir::Graph& graph, ShapeCoverage& c) {
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      ++c.outputs;
      const ValueInfo* v = inferred(graph, out);
      // A sequence or optional counts once its kind is known; a tensor needs dtype and rank.
      const bool known =
          v && (v->kind == ValueInfo::Kind::Tensor ? v->dtype != DataType::Undefined && v->has_shape
                                                   : v->kind != ValueInfo::Kind::Unknown);
      if (known) ++c.predicted;
    }
    for (const ir::Attribute& a : node.attributes) {
      if (a.g) count(*a.g, c);
      for (const auto& g : a.graphs) {
        if (g) count(*g, c);
      }
    }
  }
}

}  // namespace

ShapeCoverage shape_coverage(const ir::Model& model) {
  ir::Model copy = model;
  detach(copy.graph);
  passes::infer_shapes(copy);
  ShapeCoverage c;
  count(copy.graph, c);
  return c;
}

}  // namespace kiln::cli
