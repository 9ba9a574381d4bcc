#include "kernels/subgraph.h"

#include <algorithm>
#include <atomic>

namespace kiln {
namespace {

std::atomic<SubgraphCompiler> installed_compiler{nullptr};

}  // namespace

void set_subgraph_compiler(SubgraphCompiler compiler) { installed_compiler.store(compiler); }

const ir::Graph* optional_graph_attr(const NodeInfo& info, const std::string& name) {
  const ir::Attribute* a = info.attr(name);
  if (!a) return nullptr;
  if (a->type != ir::Attribute::Type::Graph || !a->g)
    info.fail("attribute '" + name + "' must be a graph");
  return a->g.get();
}

const ir::Graph& required_graph_attr(const NodeInfo& info, const std::string& name) {
  const ir::Graph* graph = optional_graph_attr(info, name);
  if (!graph) info.fail("needs the graph attribute '" + name + "'");
  return *graph;
}

Subgraph::Subgraph(const ir::Graph& graph, const NodeInfo& info) : graph_(graph) {
  const std::set<std::string> node_implicit = ir::implicit_inputs(info.node());
  const std::set<std::string> outer = ir::free_names(graph);
  std::vector<std::string> outer_names(outer.begin(), outer.end());
  for (const auto& name : outer_names) {
    auto it = node_implicit.find(name);
    check(it != node_implicit.end(),
          info.describe() + ": subgraph reads unknown value '" + name + "'");
    outer_index_.push_back(static_cast<size_t>(std::distance(node_implicit.begin(), it)));
  }
  const SubgraphCompiler compile = installed_compiler.load();
  if (!compile) info.fail("subgraphs are compiled only by a worker");
  try {
    program_ = compile(graph, info.model_opsets(), outer_names);
  } catch (const Error& e) {
    info.fail(std::string("in subgraph '") + graph.name + "': " + e.what());
  }
}

Subgraph::Run::Run(const Subgraph& subgraph, std::span<const Tensor> enclosing)
    : subgraph_(subgraph) {
  execution_ = subgraph.program_->start();
  bound_.resize(subgraph.num_inputs() + subgraph.outer_index_.size());
  for (size_t i = 0; i < subgraph.outer_index_.size(); ++i) {
    check(subgraph.outer_index_[i] < enclosing.size(), "subgraph: missing outer value");
    bound_[subgraph.num_inputs() + i] = enclosing[subgraph.outer_index_[i]];
  }
}

Subgraph::Run::~Run() = default;

std::vector<Tensor> Subgraph::Run::operator()(std::span<const Tensor> inputs) {
  if (inputs.size() != subgraph_.num_inputs()) {
    throw Error("subgraph '" + subgraph_.graph_.name + "' takes " +
                std::to_string(subgraph_.num_inputs()) + " inputs, got " +
                std::to_string(inputs.size()));
  }
  std::copy(inputs.begin(), inputs.end(), bound_.begin());
  return execution_->run(bound_);
}

std::span<const Tensor> enclosing_values(const OpContext& ctx, size_t own_inputs) {
  std::span<const Tensor> all = ctx.inputs();
  return own_inputs < all.size() ? all.subspan(own_inputs) : std::span<const Tensor>();
}

}  // namespace kiln
