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

// Sorts, checks, optimizes (when options.optimize) and fills model.inputs/outputs.
void run_load_pipeline(ir::Model& model, const LoadOptions& options, const KernelHooks& kernels);

}  // namespace kiln::passes
