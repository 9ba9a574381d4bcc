// The load pipeline as the runtime runs it: the passes (which know no kernel) get the CPU
// kernels through passes::KernelHooks.
#pragma once

#include "ir/graph.h"
#include "passes/pipeline.h"

namespace kiln {

// has_kernel and check_node from the CPU op registry; evaluate runs one node with its CPU
// kernel on the shared job system.
const passes::KernelHooks& cpu_kernel_hooks();

// Sorts, checks, optimizes (when options.optimize) and fills model.inputs/outputs.
void prepare_model(ir::Model& model, const LoadOptions& options);

}  // namespace kiln
