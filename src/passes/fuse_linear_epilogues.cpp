// Fuses what follows a float32 linear layer into it (opdefs/matmul_bias.h):
//   MatMul(A, constant B [K, N]) -> [Add(·, constant bias [N])] -> [Add(·, Z)] -> [activation]
//     into kiln::MatMulBias
//   Gemm -> [Add(·, Z), when the Gemm has no C] -> [activation]
//     into kiln::FusedGemm
// with the activations of passes/activation_match.h. Only values that nothing else reads
// disappear, so the graph's results are unchanged. The CPU applies the bias and the residual
// in the GEMM's tile store and the activation to each block of the output as it is finished.
#include <optional>
#include <utility>

#include "opdefs/matmul_bias.h"
#include "passes/activation_match.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

const Tensor* float32_of_rank(const ir::Graph& graph, const std::string& name, size_t rank) {
  const Tensor* t = float32_constant(graph, name);
  return t && t->rank() == rank ? t : nullptr;
}

struct Chain {
  std::vector<size_t> nodes;  // the MatMul or Gemm first
  std::string output;         // the value the fused node produces
  std::string bias;           // MatMul: the constant [N] bias
  std::string residual;       // Z
  ActivationAttrs activation;
};

// The Add that alone reads chain.output, with its other operand, or nullopt.
std::optional<std::pair<size_t, std::string>> only_add(const ir::Graph& graph,
                                                       const Readers& readers, const Chain& chain) {
  const std::optional<size_t> next = only_reader(readers, chain.output);
  if (!next || !is_op(graph.nodes[*next], "Add")) return std::nullopt;
  const std::optional<std::string> other = other_operand(graph.nodes[*next], chain.output);
  if (!other || *other == chain.output || other->empty()) return std::nullopt;
  return std::pair{*next, *other};
}

// Adds a residual Add(·, Z) with Z of the output's known shape, that alone reads chain.output.
void take_residual(const ir::Graph& graph, const Readers& readers, Chain& chain) {
  const auto add = only_add(graph, readers, chain);
  if (!add) return;
  const std::string& sum = graph.nodes[add->first].outputs[0];
  if (!is_float32(graph, add->second) || !same_known_shape(graph, add->second, chain.output) ||
      !same_known_shape(graph, sum, chain.output))
    return;
  chain.residual = add->second;
  chain.nodes.push_back(add->first);
  chain.output = sum;
}

void take_activation(const ir::Graph& graph, const Readers& readers, int opset, Chain& chain) {
  const std::optional<ActivationMatch> act = match_activation(graph, readers, chain.output, opset);
  if (!act) return;
  chain.activation = act->attrs;
  chain.nodes.insert(chain.nodes.end(), act->nodes.begin(), act->nodes.end());
  chain.output = act->output;
}

std::optional<Chain> match_matmul(const ir::Graph& graph, const Readers& readers, int opset,
                                  size_t index) {
  const ir::Node& matmul = graph.nodes[index];
  if (!is_op(matmul, "MatMul") || matmul.inputs.size() != 2 || matmul.outputs.size() != 1 ||
      matmul.inputs[0].empty() || !is_float32(graph, matmul.outputs[0]))
    return std::nullopt;
  const Tensor* b = float32_of_rank(graph, matmul.inputs[1], 2);
  if (!b) return std::nullopt;
  Chain chain{{index}, matmul.outputs[0], "", "", {}};
  // A bias of N values broadcasts along the product's last axis and changes no shape.
  if (const auto add = only_add(graph, readers, chain)) {
    const Tensor* bias = float32_of_rank(graph, add->second, 1);
    if (bias && bias->element_count() == b->shape()[1]) {
      chain.bias = add->second;
      chain.nodes.push_back(add->first);
      chain.output = graph.nodes[add->first].outputs[0];
    }
  }
  take_residual(graph, readers, chain);
  take_activation(graph, readers, opset, chain);
  if (chain.nodes.size() == 1) return std::nullopt;
  return chain;
}

std::optional<Chain> match_gemm(const ir::Graph& graph, const Readers& readers, int opset,
                                size_t index) {
  const ir::Node& gemm = graph.nodes[index];
  // A Gemm without A and B is left to Gemm's definition to refuse, in its own words.
  if (!is_op(gemm, "Gemm") || gemm.inputs.size() < 2 || gemm.inputs.size() > 3 ||
      gemm.inputs[0].empty() || gemm.inputs[1].empty() || gemm.outputs.size() != 1 ||
      !is_float32(graph, gemm.outputs[0]))
    return std::nullopt;
  Chain chain{{index}, gemm.outputs[0], "", "", {}};
  const bool has_c = gemm.inputs.size() == 3 && !gemm.inputs[2].empty();
  if (!has_c) take_residual(graph, readers, chain);
  take_activation(graph, readers, opset, chain);
  if (chain.nodes.size() == 1) return std::nullopt;
  return chain;
}

ir::Node fused_matmul(const ir::Node& matmul, const Chain& chain) {
  ir::Node fused =
      fused_node(matmul.name, kKilnDomain, kMatMulBiasOp,
                 {matmul.inputs[0], matmul.inputs[1], chain.bias, chain.residual}, chain.output);
  fused.attributes = activation_attributes(chain.activation);
  return fused;
}

ir::Node fused_gemm(const ir::Node& gemm, const Chain& chain) {
  std::vector<std::string> inputs = gemm.inputs;
  if (!chain.residual.empty()) {
    inputs.resize(2);
    inputs.push_back(chain.residual);  // Z as C, added once
  }
  ir::Node fused = fused_node(gemm.name, kKilnDomain, kFusedGemmOp, inputs, chain.output);
  for (const ir::Attribute& a : gemm.attributes) {
    if (chain.residual.empty() || a.name != "beta") fused.attributes.push_back(a);
  }
  if (!chain.residual.empty()) fused.attributes.push_back(float_attribute("beta", 1.0f));
  for (ir::Attribute& a : activation_attributes(chain.activation))
    fused.attributes.push_back(std::move(a));
  return fused;
}

}  // namespace

void fuse_linear_epilogues(ir::Graph& graph, int opset) {
  const Readers readers = find_readers(graph);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& node = graph.nodes[i];
    if (std::optional<Chain> chain = match_matmul(graph, readers, opset, i)) {
      if (fusion.free(chain->nodes)) fusion.fuse(chain->nodes, fused_matmul(node, *chain));
    } else if (std::optional<Chain> gemm = match_gemm(graph, readers, opset, i)) {
      if (fusion.free(gemm->nodes)) fusion.fuse(gemm->nodes, fused_gemm(node, *gemm));
    }
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
