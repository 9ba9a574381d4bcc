// The load-time pipeline: the passes run in order on a freshly imported model.
#pragma once

#include "ir/graph.h"
#include "passes/passes.h"

namespace kiln::passes {

// What the pipeline needs from the kernels (see passes.h): the runtime builds it.
struct KernelHooks {
  std::function<bool(const ir::Node&)> has_kernel;  // ops without one expand to their functions
  NodeCheck check_node;
  NodeEvaluator evaluate;
};

// Sorts, checks, optimizes (when options.optimize) and fills model.inputs/outputs; then exposes
// options.extra_outputs.
void run_load_pipeline(ir::Model& model, const LoadOptions& options, const KernelHooks& kernels);
// For a model read back from a .kiln file, already optimized: checks its order and its nodes as
// a fresh import would be checked (the file may come from anywhere), then exposes
// options.extra_outputs.
void run_saved_model_checks(ir::Model& model, const LoadOptions& options,
                            const KernelHooks& kernels);

}  // namespace kiln::passes
