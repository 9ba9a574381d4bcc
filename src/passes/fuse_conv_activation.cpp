// Fuses a float32 Conv with the residual Add and the activation that follow it into one
// kiln::FusedConv (opdefs/fused_conv.h):
//   Conv -> [Add(·, Z)] -> [Relu | Clip(constant bounds) | HardSwish | Mul(·, Sigmoid(·))]
// Each op in such a chain reads and writes the whole feature map once more; fused, the CPU
// writes it once, applying the rest while each block is still in cache. Only values that
// nothing else reads (no other node, no subgraph, no graph output) disappear, so the graph's
// results are unchanged. The fused node takes the place of the chain's last node, after every
// value it reads.
//
// Each worker runs it with what its backend's kernel covers: the CPU's every chain, the GPU
// backends' the activations their convolution shaders apply (FusedConvCoverage).
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "opdefs/fused_conv.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

// Known, equal shapes: every axis fixed or named by a symbol, so equal means equal at run time.
bool same_known_shape(const ir::Graph& graph, const std::string& a, const std::string& b) {
  const ValueInfo* ia = graph.find_value_info(a);
  const ValueInfo* ib = graph.find_value_info(b);
  if (!ia || !ib || !ia->has_shape || !ib->has_shape || ia->shape != ib->shape) return false;
  for (const Dim& d : ia->shape) {
    if (!d.is_fixed() && d.symbol.empty()) return false;
  }
  return true;
}

// A constant one-element float32 bound of Clip; absent -> `fallback`; nullopt when it is not
// a known constant.
std::optional<float> clip_bound(const ir::Graph& graph, const ir::Node& clip, size_t input,
                                float fallback) {
  if (input >= clip.inputs.size() || clip.inputs[input].empty()) return fallback;
  return float32_scalar(graph, clip.inputs[input]);
}

struct Chain {
  std::vector<size_t> nodes;  // the Conv first, the chain's last node last
  std::string output;         // the value the fused node produces
  std::string residual;
  FusedActivation activation = FusedActivation::kNone;
  float clip_min = 0.0f, clip_max = 0.0f;
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
  next = only_reader(readers, chain.output);
  if (next) {
    const ir::Node& act = graph.nodes[*next];
    if (is_op(act, "Relu") && act.outputs.size() == 1) {
      chain.activation = FusedActivation::kRelu;
    } else if (is_op(act, "HardSwish") && act.outputs.size() == 1) {
      chain.activation = FusedActivation::kHardSwish;
    } else if (is_op(act, "Clip") && act.outputs.size() == 1) {
      constexpr float kInf = std::numeric_limits<float>::infinity();
      std::optional<float> lo, hi;
      if (opset < 11) {
        const ir::Attribute* min = act.find_attribute("min");
        const ir::Attribute* max = act.find_attribute("max");
        lo = min ? min->f : std::numeric_limits<float>::lowest();
        hi = max ? max->f : std::numeric_limits<float>::max();
      } else {
        lo = clip_bound(graph, act, 1, -kInf);
        hi = clip_bound(graph, act, 2, kInf);
      }
      if (lo && hi) {
        chain.activation = FusedActivation::kClip;
        chain.clip_min = *lo;
        chain.clip_max = *hi;
      }
    }
    if (!coverage.covers(chain.activation)) chain.activation = FusedActivation::kNone;
    if (chain.activation != FusedActivation::kNone) {
      chain.nodes.push_back(*next);
      chain.output = act.outputs[0];
    }
  } else {
    // SiLU as exporters spell it: Mul(x, Sigmoid(x)), x read by exactly those two nodes.
    auto it = readers.find(chain.output);
    if (coverage.covers(FusedActivation::kSilu) && it != readers.end() && it->second.size() == 2 &&
        it->second[0] != kOutsideReader && it->second[1] != kOutsideReader) {
      size_t sigmoid = it->second[0], mul = it->second[1];
      if (!is_op(graph.nodes[sigmoid], "Sigmoid")) std::swap(sigmoid, mul);
      const ir::Node& s = graph.nodes[sigmoid];
      const ir::Node& m = graph.nodes[mul];
      if (is_op(s, "Sigmoid") && s.outputs.size() == 1 && is_op(m, "Mul") && m.inputs.size() == 2 &&
          m.outputs.size() == 1 && only_reader(readers, s.outputs[0]) == mul &&
          ((m.inputs[0] == chain.output && m.inputs[1] == s.outputs[0]) ||
           (m.inputs[1] == chain.output && m.inputs[0] == s.outputs[0]))) {
        chain.activation = FusedActivation::kSilu;
        chain.nodes.push_back(sigmoid);
        chain.nodes.push_back(mul);
        chain.output = m.outputs[0];
      }
    }
  }
  if (chain.nodes.size() == 1) return std::nullopt;
  return chain;
}

ir::Node fused_node(const ir::Node& conv, const Chain& chain) {
  ir::Node fused;
  fused.name = conv.name;
  fused.domain = kKilnDomain;
  fused.op_type = kFusedConvOp;
  fused.inputs = {conv.inputs[0], conv.inputs[1], conv.inputs.size() > 2 ? conv.inputs[2] : "",
                  chain.residual};
  while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
  fused.outputs = {chain.output};
  fused.attributes = conv.attributes;
  if (chain.activation != FusedActivation::kNone) {
    fused.attributes.push_back(
        string_attribute("activation", fused_activation_name(chain.activation)));
  }
  if (chain.activation == FusedActivation::kClip) {
    fused.attributes.push_back(float_attribute("clip_min", chain.clip_min));
    fused.attributes.push_back(float_attribute("clip_max", chain.clip_max));
  }
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
      fusion.fuse(chain->nodes, fused_node(graph.nodes[i], *chain));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
