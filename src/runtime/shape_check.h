// The drift check between shape inference and the kernels: a CPU kernel wrapped so that every
// output it produces is compared with the type the load-time inference predicted for it (dtype,
// rank, and every dim inference fixed). A mismatch is a kiln::Error naming the node, the output
// and both types: an op whose rule drifted from its kernel fails the first run that shows it.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "kernels/op_registry.h"

namespace kiln {

// The predicted type of each of `node`'s outputs in `graph` (nullopt where nothing is known).
std::vector<std::optional<ValueInfo>> predicted_outputs(const ir::Graph& graph,
                                                        const ir::Node& node);

CpuKernel with_shape_check(CpuKernel kernel, std::vector<std::optional<ValueInfo>> predicted);

}  // namespace kiln
