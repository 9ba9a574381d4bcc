// Fuses MatMul(A, B) -> Add(·, bias) into one kiln::MatMulBias (opdefs/matmul_bias.h) when B is
// a constant float32 matrix [K, N], bias a constant float32 [N] and nothing else reads the
// product: the Linear layer of exported transformers, whose activations are 3-D so that Gemm
// cannot take it. The CPU adds the bias in the GEMM's store instead of a second pass.
#include <optional>

#include "opdefs/matmul_bias.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

const Tensor* float32_of_rank(const ir::Graph& graph, const std::string& name, size_t rank) {
  const Tensor* t = float32_constant(graph, name);
  return t && t->rank() == rank ? t : nullptr;
}

// The MatMul -> Add chain from the MatMul at `index`, and the bias the Add adds.
std::optional<std::pair<std::vector<size_t>, std::string>> match(const ir::Graph& graph,
                                                                 const Readers& readers,
                                                                 size_t index) {
  const ir::Node& matmul = graph.nodes[index];
  if (!is_op(matmul, "MatMul") || matmul.inputs.size() != 2 || matmul.outputs.size() != 1 ||
      matmul.inputs[0].empty() || !is_float32(graph, matmul.outputs[0]))
    return std::nullopt;
  const Tensor* b = float32_of_rank(graph, matmul.inputs[1], 2);
  const std::optional<size_t> next = only_reader(readers, matmul.outputs[0]);
  if (!b || !next) return std::nullopt;
  const ir::Node& add = graph.nodes[*next];
  if (!is_op(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return std::nullopt;
  const std::string& other = add.inputs[0] == matmul.outputs[0] ? add.inputs[1] : add.inputs[0];
  const Tensor* bias = float32_of_rank(graph, other, 1);
  // A bias of N values broadcasts along the product's last axis and changes no shape.
  if (!bias || other == matmul.outputs[0] || bias->element_count() != b->shape()[1])
    return std::nullopt;
  return std::pair{std::vector<size_t>{index, *next}, other};
}

}  // namespace

void fuse_matmul_bias(ir::Graph& graph) {
  const Readers readers = find_readers(graph);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto chain = match(graph, readers, i);
    if (!chain || !fusion.free(chain->first)) continue;
    const ir::Node& matmul = graph.nodes[i];
    ir::Node fused;
    fused.name = matmul.name;
    fused.domain = kKilnDomain;
    fused.op_type = kMatMulBiasOp;
    fused.inputs = {matmul.inputs[0], matmul.inputs[1], chain->second};
    fused.outputs = {graph.nodes[chain->first[1]].outputs[0]};
    fusion.fuse(chain->first, std::move(fused));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
