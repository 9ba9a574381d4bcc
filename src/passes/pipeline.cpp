#include "passes/pipeline.h"

#include <set>

#include "onnx/spec_functions.h"
#include "passes/expand_gradient.h"
#include "passes/passes.h"

namespace kiln::passes {

void run_load_pipeline(ir::Model& model, const LoadOptions& options, const KernelHooks& kernels) {
  inline_functions(model, [&](const ir::Node& node, int opset) -> const ir::Function* {
    if (kernels.has_kernel(node)) return nullptr;
    return onnx_import::spec_function(node.domain, node.op_type, opset);
  });
  expand_gradients(model);
  topological_sort(model.graph, model.path);
  check_operators_supported(model, kernels.check_node);
  infer_shapes(model);
  if (options.optimize) {
    remove_noop_nodes(model.graph);
    // Folding makes more inputs constant, so inference learns more shapes, which lets Shape
    // nodes further down fold: repeat while the graph shrinks (a chain of attention layers
    // needs one round per layer).
    for (size_t before = 0; before != model.graph.nodes.size();) {
      before = model.graph.nodes.size();
      fold_constants(model, kernels.evaluate);
      remove_dead_nodes(model.graph);
      infer_shapes(model);
    }
    fold_batch_norm(model.graph);
    remove_dead_nodes(model.graph);
  }
  std::set<std::string> initialized;
  for (const auto& [name, t] : model.graph.initializers) initialized.insert(name);
  model.inputs.clear();
  for (const auto& in : model.graph.inputs) {
    if (!initialized.count(in.name)) model.inputs.push_back(in);
  }
  model.outputs = model.graph.outputs;
  expose_values(model, options.extra_outputs);
}

void run_saved_model_checks(ir::Model& model, const LoadOptions& options,
                            const KernelHooks& kernels) {
  topological_sort(model.graph, model.path);
  check_operators_supported(model, kernels.check_node);
  expose_values(model, options.extra_outputs);
}

}  // namespace kiln::passes
