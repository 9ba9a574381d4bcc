// The load-time pipeline: the passes run in order on a freshly imported model.
#pragma once

#include "ir/graph.h"

namespace kiln::passes {

// Sorts, checks, optimizes (when options.optimize) and fills model.inputs/outputs.
void run_load_pipeline(ir::Model& model, const LoadOptions& options);

}  // namespace kiln::passes
