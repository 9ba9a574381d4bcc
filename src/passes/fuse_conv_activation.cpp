// Fuses a float32 Conv with the residual Add and the activation that follow it into one
// kiln::FusedConv (opdefs/fused_conv.h):
//   Conv -> [Add(·, Z)] -> [an activation of passes/activation_match.h]
// Each op in such a chain reads and writes the whole feature map once more; fused, the CPU
// writes it once, applying the rest while each block is still in cache. Only values that
// nothing else reads (no other node, no subgraph, no graph output) disappear, so the graph's
// results are unchanged. The fused node takes the place of the chain's last node, after every
// value it reads.
//
// Each worker runs it with what its backend's kernel covers: the CPU's every chain, the GPU
// backends' the activations their convolution shaders apply (FusedConvCoverage).
#include <optional>
#include <vector>

#include "opdefs/fused_conv.h"
#include "passes/activation_match.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

struct Chain {
  std::vector<size_t> nodes;  // the Conv first, the chain's last node last
  std::string output;         // the value the fused node produces
  std::string residual;
  ActivationAttrs activation;
};

// A Conv the pass can fuse a chain into.
bool is_fusable_conv(const ir::Graph& graph, size_t index) {
  const ir::Node& conv = graph.nodes[index];
  // A Conv without its X and W is left to Conv's definition to refuse, in its own words.
  const bool well_formed = conv.inputs.size() >= 2 && conv.inputs.size() <= 3 &&
                           !conv.inputs[0].empty() && !conv.inputs[1].empty();
  return is_op(conv, "Conv") && well_formed && conv.outputs.size() == 1 &&
         is_float32(graph, conv.outputs[0]) && !has_subgraph(conv);
}

std::optional<Chain> match_chain(const ir::Graph& graph, const Readers& readers,
                                 const Producers& producer, int opset,
                                 const FusedConvCoverage& coverage, size_t conv_index) {
  if (!is_fusable_conv(graph, conv_index)) return std::nullopt;
  Chain chain;
  chain.nodes.push_back(conv_index);
  chain.output = graph.nodes[conv_index].outputs[0];
  std::optional<size_t> next = only_reader(readers, chain.output);
  if (coverage.residual && next && is_op(graph.nodes[*next], "Add") &&
      graph.nodes[*next].inputs.size() == 2 && graph.nodes[*next].outputs.size() == 1) {
    const ir::Node& add = graph.nodes[*next];
    const std::string& other = add.inputs[0] == chain.output ? add.inputs[1] : add.inputs[0];
    // When the other operand comes from a later Conv read only here, that Conv takes the Add:
    // the earlier branch (ResNet's downsampling conv) then runs beside the main path.
    auto other_producer = producer.find(other);
    const bool later_conv_takes_it =
        other_producer != producer.end() && other_producer->second > conv_index &&
        is_fusable_conv(graph, other_producer->second) && only_reader(readers, other) == next;
    if (other != chain.output && !later_conv_takes_it && is_float32(graph, other) &&
        same_known_shape(graph, other, chain.output) &&
        same_known_shape(graph, add.outputs[0], chain.output)) {
      chain.residual = other;
      chain.nodes.push_back(*next);
      chain.output = add.outputs[0];
    }
  }
  const std::optional<ActivationMatch> act = match_activation(graph, readers, chain.output, opset);
  if (act && coverage.covers(act->attrs.activation)) {
    chain.activation = act->attrs;
    chain.nodes.insert(chain.nodes.end(), act->nodes.begin(), act->nodes.end());
    chain.output = act->output;
  }
  if (chain.nodes.size() == 1) return std::nullopt;
  return chain;
}

ir::Node fused_conv(const ir::Node& conv, const Chain& chain) {
  ir::Node fused = fused_node(conv.name, kKilnDomain, kFusedConvOp,
                              {conv.inputs[0], conv.inputs[1],
                               conv.inputs.size() > 2 ? conv.inputs[2] : "", chain.residual},
                              chain.output);
  fused.attributes = conv.attributes;
  for (ir::Attribute& a : activation_attributes(chain.activation))
    fused.attributes.push_back(std::move(a));
  return fused;
}

}  // namespace

void fuse_conv_activations(ir::Graph& graph, int opset, const FusedConvCoverage& coverage) {
  const Readers readers = find_readers(graph);
  const Producers producer = find_producers(graph);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::optional<Chain> chain = match_chain(graph, readers, producer, opset, coverage, i);
    if (chain && fusion.free(chain->nodes))
      fusion.fuse(chain->nodes, fused_conv(graph.nodes[i], *chain));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
