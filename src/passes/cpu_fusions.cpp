// The CPU worker's fusions in one list, so that the worker and the tools that explain its graph
// (kiln inspect maps the fused nodes back to the model's) apply the same ones in the same order.
#include "passes/passes.h"

namespace kiln::passes {

void fuse_for_cpu(ir::Graph& graph, int opset) {
  // First, so that a GELU spelled op by op is one activation for the fusions below.
  fuse_gelu(graph);
  fuse_conv_activations(graph, opset, FusedConvCoverage::everything());
  fuse_linear_epilogues(graph, opset);
  fuse_normalizations(graph, opset);
  // Before attention, which then takes a Softmax that was spelled out as one.
  fuse_softmax(graph, opset);
  fuse_attention(graph, opset);
}

}  // namespace kiln::passes
