// The load-time expansion of ai.onnx.preview.training::Gradient nodes (expand_gradient.cpp).
#pragma once

#include "ir/graph.h"

namespace kiln::passes {

// Replaces every Gradient node (subgraphs included) by the nodes computing its outputs, the
// gradients of its 'y' with respect to its 'xs'. kiln::Error naming the Gradient node for a
// malformed one, or naming the op when y depends on an op kiln cannot differentiate.
void expand_gradients(ir::Model& model);

}  // namespace kiln::passes
