// Constant folding: a node whose inputs are all initializers is run once at load time (by the
// evaluator the runtime hands in, with the CPU kernel), and its outputs become initializers. Shape
// of a value whose shape is fully known is folded too. Random ops, ops with subgraphs and nodes
// whose outputs would be large are left alone; a node whose kernel fails is left for run time,
// where its error surfaces.
#include <set>

#include "opdefs/op_def.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {

namespace {

// Folding a constant that expands into a big tensor would only grow the model in memory.
constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

bool is_nondeterministic(const ir::Node& node) {
  const OpDef* def = OpDefs::global().find(node);
  return def && def->nondeterministic;
}

bool is_graph_input(const ir::Graph& graph, const std::string& name) {
  for (const auto& in : graph.inputs) {
    if (in.name == name) return true;
  }
  return false;
}

void fold_graph(ir::Graph& graph, const ir::Model& model, const NodeEvaluator& evaluate) {
  std::vector<ir::Node> kept;
  for (auto& node : graph.nodes) {
    bool foldable =
        !is_nondeterministic(node) && !has_subgraph(node) && node.domain.rfind("kiln.test", 0) != 0;
    for (const auto& in : node.inputs) {
      // Graph inputs with an initializer are overridable defaults, not constants.
      if (!in.empty() && (!graph.initializers.count(in) || is_graph_input(graph, in)))
        foldable = false;
    }
    for (const auto& out : node.outputs) {
      if (is_graph_output(graph, out))
        foldable = false;  // keep user-visible outputs computed by nodes
    }
    std::optional<std::vector<Tensor>> values;
    if (foldable) values = evaluate(node, model, graph);
    for (size_t k = 0; values && k < values->size(); ++k) {
      // Folding a constant that expands into a big tensor would only grow the model in memory.
      if ((*values)[k].element_count() > kMaxFoldedElements) values.reset();
    }
    if (!values) {
      kept.push_back(std::move(node));
      continue;
    }
    size_t k = 0;
    for (const auto& out : node.outputs) {
      if (!out.empty()) graph.initializers[out] = (*values)[k++];
    }
  }
  graph.nodes = std::move(kept);
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) fold_graph(*a.g, model, evaluate);
      for (auto& g : a.graphs) fold_graph(*g, model, evaluate);
    }
  }
}

// Shape(x) where x's shape is fully known becomes a constant.
void fold_static_shapes(ir::Graph& graph) {
  for (auto& node : graph.nodes) {
    if (!node.domain.empty() || (node.op_type != "Shape" && node.op_type != "Size") ||
        node.inputs.empty() || node.outputs.empty())
      continue;
    const ValueInfo* info = graph.find_value_info(node.inputs[0]);
    if (!info || !info->has_shape || is_graph_output(graph, node.outputs[0])) continue;
    std::vector<int64_t> dims;
    bool fixed = true;
    for (const auto& d : info->shape) {
      fixed = fixed && d.is_fixed();
      dims.push_back(d.value);
    }
    if (!fixed) continue;
    if (node.op_type == "Size") {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      graph.initializers[node.outputs[0]] = Tensor::scalar<int64_t>(n);
    } else {
      const int64_t rank = static_cast<int64_t>(dims.size());
      int64_t start = 0, end = rank;
      if (const auto* a = node.find_attribute("start")) start = a->i;
      if (const auto* a = node.find_attribute("end")) end = a->i;
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      std::vector<int64_t> slice(dims.begin() + start, dims.begin() + end);
      graph.initializers[node.outputs[0]] =
          Tensor::from_data<int64_t>({static_cast<int64_t>(slice.size())}, slice);
    }
    node.op_type.clear();  // marked for removal below
  }
  std::erase_if(graph.nodes, [](const ir::Node& n) { return n.op_type.empty(); });
}

}  // namespace

void fold_constants(ir::Model& model, const NodeEvaluator& evaluate) {
  fold_static_shapes(model.graph);
  fold_graph(model.graph, model, evaluate);
}

}  // namespace kiln::passes
