// Subgraph attributes (If's branches, Loop's and Scan's bodies, SequenceMap's body) compiled once
// at load time and run to completion inside the job of the node that owns them. The kernels see
// this interface; the runtime, which compiles and executes graphs, implements SubgraphProgram
// and installs its compiler before it creates any kernel.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/op_registry.h"

namespace kiln {

// A compiled subgraph, as the runtime provides it.
class SubgraphProgram {
 public:
  virtual ~SubgraphProgram() = default;
  // One use of the program: keeps its planned memory across the calls of run().
  class Execution {
   public:
    virtual ~Execution() = default;
    // Runs every node on the calling thread with `bound` (the subgraph's inputs, then its outer
    // values) and returns the outputs, finished. Rethrows the kiln::Error of a failing node.
    virtual std::vector<Tensor> run(std::span<const Tensor> bound) = 0;
  };
  virtual std::unique_ptr<Execution> start() const = 0;
};

// Compiles `graph`, whose values read from enclosing scopes are `outer_names` (bound after its
// inputs). kiln::Error for a subgraph that does not compile.
using SubgraphCompiler = std::shared_ptr<const SubgraphProgram> (*)(
    const ir::Graph& graph, const std::map<std::string, int>& opsets,
    const std::vector<std::string>& outer_names);
void set_subgraph_compiler(SubgraphCompiler compiler);

class Subgraph {
 public:
  // `graph` is an attribute of info's node. Its kernels are created here, so errors in the
  // subgraph surface at load time.
  Subgraph(const ir::Graph& graph, const NodeInfo& info);

  const ir::Graph& graph() const { return graph_; }
  size_t num_inputs() const { return graph_.inputs.size(); }
  size_t num_outputs() const { return graph_.outputs.size(); }

  // One use of the subgraph inside a kernel call: keeps its planned memory across the calls
  // of run(), so a loop body allocates on its first iteration only.
  class Run {
   public:
    // `enclosing` holds the values the owning node's subgraphs read from outer scopes, in
    // ir::implicit_inputs(node) order (the OpContext inputs after the node's own).
    Run(const Subgraph& subgraph, std::span<const Tensor> enclosing);
    ~Run();
    // Runs the subgraph on the calling thread and returns its outputs, finished. Rethrows the
    // kiln::Error of a failing node.
    std::vector<Tensor> operator()(std::span<const Tensor> inputs);

   private:
    const Subgraph& subgraph_;
    std::unique_ptr<SubgraphProgram::Execution> execution_;
    std::vector<Tensor> bound_;  // the subgraph's inputs, then its outer values
  };

 private:
  const ir::Graph& graph_;
  std::shared_ptr<const SubgraphProgram> program_;
  std::vector<size_t> outer_index_;  // per outer name of the subgraph: index among enclosing
};

// The graph attribute `name` of info's node: required_graph_attr fails naming the node when it
// is missing, optional_graph_attr returns nullptr.
const ir::Graph& required_graph_attr(const NodeInfo& info, const std::string& name);
const ir::Graph* optional_graph_attr(const NodeInfo& info, const std::string& name);

// The values a control-flow node's subgraphs read from outer scopes: its OpContext inputs after
// its own `own_inputs`.
std::span<const Tensor> enclosing_values(const OpContext& ctx, size_t own_inputs);

}  // namespace kiln
