// Fuses the exact GELU as exporters spell it op by op into one com.microsoft Gelu (the same
// function, x * 0.5 * (1 + erf(x / sqrt(2))), which the CPU computes in one pass):
//   A: x -> Div(·, sqrt 2) | Mul(·, 1/sqrt 2) -> Erf -> Add(·, 1) -> Mul(x, ·) -> Mul(·, 0.5)
//   B: x -> Div(·, sqrt 2) | Mul(·, 1/sqrt 2) -> Erf -> Add(·, 1) -> Mul(Mul(x, 0.5), ·)
// (A: PyTorch's nn.GELU; B: BERT's own gelu.) Operands of Add and Mul may come in either order.
// Only values that nothing else reads disappear, so the graph's results are unchanged.
#include <cmath>
#include <optional>

#include "ir/domains.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

struct Match {
  std::vector<size_t> nodes;
  std::string x, y;
};

// The GELU starting at the Div or Mul at `index` (x / sqrt 2).
std::optional<Match> match(const ir::Graph& graph, const Readers& readers,
                           const Producers& producer, size_t index) {
  const ir::Node& scale = graph.nodes[index];
  if (scale.inputs.size() != 2 || scale.outputs.size() != 1 || scale.inputs[0].empty() ||
      !is_float32(graph, scale.outputs[0]))
    return std::nullopt;
  const std::string x = scale.inputs[0];
  const bool divides = is_op(scale, "Div") && is_scalar(graph, scale.inputs[1], std::sqrt(2.0));
  const bool multiplies = is_op(scale, "Mul") && is_scalar(graph, scale.inputs[1], std::sqrt(0.5));
  if (!divides && !multiplies) return std::nullopt;
  const auto erf = only_reader_op(graph, readers, scale.outputs[0], "Erf", 1);
  if (!erf || graph.nodes[*erf].outputs.size() != 1) return std::nullopt;
  const auto add = only_reader_op(graph, readers, graph.nodes[*erf].outputs[0], "Add", 2);
  if (!add) return std::nullopt;
  const auto one = other_operand(graph.nodes[*add], graph.nodes[*erf].outputs[0]);
  if (!one || !is_scalar(graph, *one, 1.0)) return std::nullopt;
  const std::string& sum = graph.nodes[*add].outputs[0];  // 1 + erf(x / sqrt 2)
  const auto mul = only_reader_op(graph, readers, sum, "Mul", 2);
  if (!mul) return std::nullopt;
  const auto factor = other_operand(graph.nodes[*mul], sum);
  if (!factor) return std::nullopt;
  Match m{{index, *erf, *add, *mul}, x, ""};
  if (*factor == x) {  // A: x * sum, then * 0.5
    const std::string& product = graph.nodes[*mul].outputs[0];
    const auto half = only_reader_op(graph, readers, product, "Mul", 2);
    if (!half) return std::nullopt;
    const auto c = other_operand(graph.nodes[*half], product);
    if (!c || !is_scalar(graph, *c, 0.5)) return std::nullopt;
    m.nodes.push_back(*half);
    m.y = graph.nodes[*half].outputs[0];
    return m;
  }
  // B: (x * 0.5) * sum, x * 0.5 read only here.
  const auto half = producer.find(*factor);
  if (half == producer.end() || !is_op(graph.nodes[half->second], "Mul") ||
      only_reader(readers, *factor) != mul)
    return std::nullopt;
  const auto c = other_operand(graph.nodes[half->second], x);
  if (!c || !is_scalar(graph, *c, 0.5)) return std::nullopt;
  m.nodes.push_back(half->second);
  m.y = graph.nodes[*mul].outputs[0];
  return m;
}

}  // namespace

void fuse_gelu(ir::Graph& graph) {
  const Readers readers = find_readers(graph);
  const Producers producer = find_producers(graph);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::optional<Match> m = match(graph, readers, producer, i);
    if (!m || !fusion.free(m->nodes)) continue;
    fusion.fuse(m->nodes,
                fused_node(graph.nodes[i].name, ir::kMicrosoftDomain, "Gelu", {m->x}, m->y));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
