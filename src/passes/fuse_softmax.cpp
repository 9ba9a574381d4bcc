// Fuses Softmax over the last axis as exporters spell it op by op into one Softmax:
//   stable:   e = Exp(Sub(x, ReduceMax(x))); Div(e, ReduceSum(e))   -> Softmax(x)
//   unstable: e = Exp(s);                   Div(e, ReduceSum(e))   -> Softmax(s)
// with keepdims reductions over the last axis only. Softmax over the last axis (axis = -1) is
// the same function at every opset: before 13 it flattens the input to 2-D at `axis`, which for
// the last axis leaves every row as it is. Only float32, and only values that nothing else reads
// disappear.
//
// The unstable spelling differs from the fused Softmax only where it has no meaningful result:
// exp overflows to inf for inputs above about 88 (inf / inf = NaN) and a row whose every exp
// underflows divides 0 by 0. Everywhere else exp(s) / sum(exp(s)) and Softmax's
// exp(s - max) / sum(exp(s - max)) are the same quotient up to rounding. The exporter wrote a
// softmax; the fused node gives it where the op-by-op form breaks down.
#include <optional>

#include "passes/graph_rewrite.h"
#include "passes/passes.h"
#include "passes/trailing_reduction.h"

namespace kiln::passes {
namespace {

struct Match {
  std::vector<size_t> nodes;
  std::string x, y;
};

// Whether `reduce` is a keepdims `op_type` over the last axis of `input`.
bool reduces_last_axis(const ir::Graph& graph, const ir::Node& reduce, const char* op_type,
                       const std::string& input, int opset) {
  return is_op(reduce, op_type) && !reduce.inputs.empty() && reduce.inputs[0] == input &&
         trailing_reduction(graph, reduce, opset, known_rank(graph, input)) == 1;
}

// The softmax from the Exp at `index`.
std::optional<Match> match(const ir::Graph& graph, const Readers& readers,
                           const Producers& producer, int opset, size_t index) {
  const ir::Node& exp = graph.nodes[index];
  if (!is_op(exp, "Exp") || exp.inputs.size() != 1 || exp.outputs.size() != 1 ||
      exp.inputs[0].empty() || !is_float32(graph, exp.outputs[0]))
    return std::nullopt;
  const std::string& e = exp.outputs[0];
  // e's readers: the ReduceSum and the Div, each once.
  const auto it = readers.find(e);
  if (it == readers.end() || it->second.size() != 2) return std::nullopt;
  std::optional<size_t> sum;
  for (size_t r : it->second) {
    if (r != kOutsideReader && reduces_last_axis(graph, graph.nodes[r], "ReduceSum", e, opset))
      sum = r;
  }
  if (!sum) return std::nullopt;
  const std::string& total = graph.nodes[*sum].outputs[0];
  const auto div = only_reader_op(graph, readers, total, "Div", 2);
  if (!div || graph.nodes[*div].inputs[0] != e || graph.nodes[*div].inputs[1] != total ||
      !read_only_by(readers, e, {*sum, *div}))
    return std::nullopt;
  Match m{{index, *sum, *div}, exp.inputs[0], graph.nodes[*div].outputs[0]};
  // The stable spelling: s = x - ReduceMax(x), s and the max read only on the way.
  const auto sub = producer.find(m.x);
  if (sub == producer.end() || !is_op(graph.nodes[sub->second], "Sub") ||
      only_reader(readers, m.x) != index)
    return m;
  const ir::Node& centre = graph.nodes[sub->second];
  if (centre.inputs.size() != 2 || centre.inputs[0].empty()) return m;
  const auto max = producer.find(centre.inputs[1]);
  if (max == producer.end() || only_reader(readers, centre.inputs[1]) != sub->second ||
      !reduces_last_axis(graph, graph.nodes[max->second], "ReduceMax", centre.inputs[0], opset))
    return m;
  m.nodes.push_back(max->second);
  m.nodes.push_back(sub->second);
  m.x = centre.inputs[0];
  return m;
}

}  // namespace

void fuse_softmax(ir::Graph& graph, int opset) {
  const Readers readers = find_readers(graph);
  const Producers producer = find_producers(graph);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::optional<Match> m = match(graph, readers, producer, opset, i);
    if (!m || !fusion.free(m->nodes)) continue;
    ir::Node softmax = fused_node(graph.nodes[i].name, "", "Softmax", {m->x}, m->y);
    softmax.attributes = {int_attribute("axis", -1)};
    fusion.fuse(m->nodes, std::move(softmax));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
