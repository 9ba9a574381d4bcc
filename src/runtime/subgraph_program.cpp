#include "runtime/subgraph_program.h"

#include "core/tensor_impl.h"
#include "core/thread_pool.h"
#include "kernels/subgraph.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution.h"

namespace kiln {
namespace {

class InlineExecution final : public SubgraphProgram::Execution {
 public:
  explicit InlineExecution(std::shared_ptr<const CompiledGraph> graph)
      : graph_(graph), execution_(std::move(graph), current_pool()) {}

  std::vector<Tensor> run(std::span<const Tensor> bound) override {
    execution_.prepare(bound);
    for (size_t i = 0; i < graph_->nodes.size(); ++i) execution_.run_node_inline(i);
    std::vector<Tensor> outputs;
    outputs.reserve(graph_->output_slots.size());
    for (int slot : graph_->output_slots) {
      const Tensor& value = execution_.value(slot);
      if (value.defined()) value.impl()->wait();  // rethrows a failed node's error
      outputs.push_back(value);
    }
    return outputs;
  }

 private:
  // Nested parallel loops run on the pool of the job that runs the owning node.
  static ThreadPool& current_pool() {
    ThreadPool* pool = ThreadPool::current();
    return pool ? *pool : ThreadPool::shared();
  }

  std::shared_ptr<const CompiledGraph> graph_;
  kiln::Execution execution_;
};

class CompiledSubgraph final : public SubgraphProgram {
 public:
  explicit CompiledSubgraph(CompiledGraph graph)
      : graph_(std::make_shared<const CompiledGraph>(std::move(graph))) {}
  std::unique_ptr<Execution> start() const override {
    return std::make_unique<InlineExecution>(graph_);
  }

 private:
  std::shared_ptr<const CompiledGraph> graph_;
};

std::shared_ptr<const SubgraphProgram> compile_subgraph(
    const ir::Graph& graph, const std::map<std::string, int>& opsets,
    const std::vector<std::string>& outer_names) {
  return std::make_shared<CompiledSubgraph>(compile_graph(graph, opsets, outer_names));
}

}  // namespace

void install_subgraph_compiler() {
  static const bool installed = (set_subgraph_compiler(&compile_subgraph), true);
  (void)installed;
}

}  // namespace kiln
