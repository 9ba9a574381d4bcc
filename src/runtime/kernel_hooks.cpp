#include "runtime/kernel_hooks.h"

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution.h"
#include "runtime/subgraph_program.h"

namespace kiln {
namespace {

bool has_kernel(const ir::Node& node) {
  return OpRegistry::global().find(node.domain, node.op_type) != nullptr;
}

// Creating the node's kernel parses its attributes, so a bad attribute fails the load rather
// than the first run.
void check_node(const ir::Node& node, const ir::Model& model) {
  install_subgraph_compiler();  // control-flow kernels compile their subgraphs
  const OpSchema* schema = OpRegistry::global().find(node.domain, node.op_type);
  if (!schema) {
    throw Error(model.path + ": " + node.describe() + ": operator '" +
                (node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type) +
                "' is not supported by kiln");
  }
  // No constant inputs here: the factory only parses attributes, so weights are not packed
  // twice (the worker's compile packs them once).
  try {
    schema->factory(NodeInfo(node, model.opset_for(node.domain), {}, &model.opsets));
  } catch (const Error& e) {
    throw Error(model.path + ": " + e.what());
  }
}

std::optional<std::vector<Tensor>> evaluate(const ir::Node& node, const ir::Model& model,
                                            const ir::Graph& graph) {
  ir::Graph mini;
  for (const auto& in : node.inputs) {
    if (!in.empty()) mini.initializers[in] = graph.initializers.at(in);
  }
  mini.nodes.push_back(node);
  for (const auto& out : node.outputs) {
    if (out.empty()) continue;
    ValueInfo output;
    output.name = out;
    mini.outputs.push_back(std::move(output));
  }
  try {
    auto compiled = std::make_shared<const CompiledGraph>(compile_graph(mini, model.opsets));
    Execution execution(compiled, ThreadPool::shared());
    execution.prepare({});
    execution.run_node_inline(0);
    std::vector<Tensor> outputs;
    for (int slot : compiled->output_slots) {
      outputs.push_back(execution.value(slot).readback_and_clone());
    }
    return outputs;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

const passes::KernelHooks& cpu_kernel_hooks() {
  static const passes::KernelHooks hooks{has_kernel, check_node, evaluate};
  return hooks;
}

void prepare_model(ir::Model& model, const LoadOptions& options) {
  passes::run_load_pipeline(model, options, cpu_kernel_hooks());
}

}  // namespace kiln
