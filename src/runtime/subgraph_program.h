// The runtime's side of kernels/subgraph.h: subgraphs compiled like any graph and executed
// inline on the calling thread.
#pragma once

namespace kiln {

// Installs the runtime's subgraph compiler (idempotent); compile_graph calls it before it
// creates any kernel.
void install_subgraph_compiler();

}  // namespace kiln
