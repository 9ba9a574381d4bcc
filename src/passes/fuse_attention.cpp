// Fuses scaled dot-product attention as exporters spell it op by op into one kiln::FusedAttention
// (opdefs/fused_attention.h):
//   MatMul(Q', K') [-> Mul | Div by a constant] [-> Add(·, mask)] -> Softmax(last axis)
//     -> MatMul(·, V') [-> Transpose keeping the last axis]
// where Q' and K' (= K^T) are Q and K^T after at most one Transpose and at most one Mul or Div by
// a constant (in either order) and V' is V after at most one Transpose. The Transposes become the
// op's perms, read and written in place through strides: PyTorch's nn.MultiheadAttention puts
// heads into the batch axis with Transpose(perm [1, 0, 2]) on Q and V, [1, 2, 0] on K, and back
// after, and 4-D exporters use [0, 2, 1, 3] and [0, 2, 3, 1].
//
// Only float32 chains of ranks 2 to 4 fuse, and only when every value that disappears has no
// other reader and is not a graph output. The mask must be known not to grow the scores under
// broadcasting (each of its dims 1 or the scores' own, the last one the scores' own), which the
// inferred shapes must show; when they do not, nothing fuses.
#include <algorithm>
#include <numeric>
#include <optional>

#include "opdefs/fused_attention.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::passes {
namespace {

// The dims of a float32 value whose rank is known: an initializer (a constant mask) or a value
// shape inference typed.
std::optional<std::vector<Dim>> float32_dims(const ir::Graph& graph, const std::string& value) {
  if (auto it = graph.initializers.find(value); it != graph.initializers.end()) {
    if (it->second.dtype() != DataType::Float32) return std::nullopt;
    std::vector<Dim> dims;
    for (int64_t d : it->second.shape()) dims.push_back(Dim{d, ""});
    return dims;
  }
  const ValueInfo* info = graph.find_value_info(value);
  if (!info || !info->has_shape || info->dtype != DataType::Float32) return std::nullopt;
  return info->shape;
}

// The rank of a float32 value whose rank is known and between 2 and 4.
std::optional<size_t> attention_rank(const ir::Graph& graph, const std::string& value) {
  const std::optional<std::vector<Dim>> dims = float32_dims(graph, value);
  if (!dims || dims->size() < 2 || dims->size() > 4) return std::nullopt;
  return dims->size();
}

// The factor a Mul or Div by a constant float32 scalar applies to its other operand `x`.
std::optional<double> constant_factor(const ir::Graph& graph, const ir::Node& node,
                                      std::string& x) {
  const bool mul = is_op(node, "Mul"), div = is_op(node, "Div");
  if ((!mul && !div) || node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
  for (size_t c = div ? 1 : 0; c < 2; ++c) {
    // Of rank 0 or 1: a one-element constant of higher rank would broadcast x to it.
    const Tensor* t = float32_constant(graph, node.inputs[c]);
    if (!t || t->element_count() != 1 || t->rank() > 1) continue;
    const double value = t->data<float>()[0];
    if (div && value == 0.0) return std::nullopt;
    x = node.inputs[1 - c];
    return div ? 1.0 / value : value;
  }
  return std::nullopt;
}

std::vector<int64_t> identity(size_t rank) {
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

// A Transpose's perm over `rank` axes (absent: reversed).
std::vector<int64_t> transpose_perm(const ir::Node& node, size_t rank) {
  const ir::Attribute* a = node.find_attribute("perm");
  if (!a) {
    std::vector<int64_t> perm = identity(rank);
    std::reverse(perm.begin(), perm.end());
    return perm;
  }
  std::vector<int64_t> perm = a->ints;
  if (perm.size() != rank || !std::is_permutation(perm.begin(), perm.end(), identity(rank).begin()))
    return {};
  return perm;
}

struct Match {
  std::vector<size_t> nodes;
  std::string q, k, v, mask, y;
  std::vector<int64_t> q_perm, k_perm, v_perm, y_perm;
  double scale = 1.0;
};

class Matcher {
 public:
  Matcher(const ir::Graph& graph, int opset)
      : graph_(graph),
        opset_(opset),
        readers_(find_readers(graph)),
        producers_(find_producers(graph)) {}

  // The attention around the Softmax at `index`.
  std::optional<Match> match(size_t index) const {
    const ir::Node& softmax = graph_.nodes[index];
    if (!is_op(softmax, "Softmax") || softmax.inputs.size() != 1 || softmax.outputs.size() != 1)
      return std::nullopt;
    const std::optional<size_t> rank = attention_rank(graph_, softmax.inputs[0]);
    if (!rank || !last_axis(softmax, *rank)) return std::nullopt;
    Match m;
    m.nodes.push_back(index);

    // Upwards: [Add(·, mask)] <- [Mul | Div] <- MatMul(Q', K').
    std::string scores = softmax.inputs[0];
    const ir::Node* node = producer_read_once(scores);
    if (node && is_op(*node, "Add") && node->inputs.size() == 2) {
      const size_t side = is_scores_side(node->inputs[0]) ? 0 : 1;
      if (!mask_fits(node->inputs[1 - side], node->inputs[side])) return std::nullopt;
      m.mask = node->inputs[1 - side];
      m.nodes.push_back(producers_.at(scores));
      scores = node->inputs[side];
      node = producer_read_once(scores);
    }
    std::string x;
    if (node) {
      if (const std::optional<double> f = constant_factor(graph_, *node, x)) {
        m.scale *= *f;
        m.nodes.push_back(producers_.at(scores));
        scores = x;
        node = producer_read_once(scores);
      }
    }
    if (!node || !is_op(*node, "MatMul") || node->inputs.size() != 2) return std::nullopt;
    m.nodes.push_back(producers_.at(scores));
    const ir::Node& product = *node;
    std::vector<int64_t> kt_perm;
    if (!operand(product.inputs[0], true, m, m.q, m.q_perm) ||
        !operand(product.inputs[1], true, m, m.k, kt_perm))
      return std::nullopt;
    // The keys are K^T with its last two axes swapped back.
    m.k_perm = kt_perm;
    std::swap(m.k_perm[m.k_perm.size() - 1], m.k_perm[m.k_perm.size() - 2]);

    // Downwards: MatMul(probabilities, V') -> [Transpose].
    const std::string& probs = softmax.outputs[0];
    const std::optional<size_t> next = only_reader(readers_, probs);
    if (!next) return std::nullopt;
    const ir::Node& weigh = graph_.nodes[*next];
    if (!is_op(weigh, "MatMul") || weigh.inputs.size() != 2 || weigh.outputs.size() != 1 ||
        weigh.inputs[0] != probs || weigh.inputs[1] == probs)
      return std::nullopt;
    m.nodes.push_back(*next);
    if (!operand(weigh.inputs[1], false, m, m.v, m.v_perm)) return std::nullopt;
    m.y = weigh.outputs[0];
    const std::optional<size_t> y_rank = attention_rank(graph_, m.y);
    if (!y_rank) return std::nullopt;
    m.y_perm = identity(*y_rank);
    const std::optional<size_t> after = only_reader(readers_, m.y);
    if (after && is_op(graph_.nodes[*after], "Transpose") &&
        graph_.nodes[*after].outputs.size() == 1) {
      const std::vector<int64_t> perm = transpose_perm(graph_.nodes[*after], *y_rank);
      if (!perm.empty() && perm.back() == static_cast<int64_t>(*y_rank) - 1) {
        m.nodes.push_back(*after);
        m.y_perm = perm;
        m.y = graph_.nodes[*after].outputs[0];
      }
    }
    return m;
  }

 private:
  bool last_axis(const ir::Node& softmax, size_t rank) const {
    const ir::Attribute* a = softmax.find_attribute("axis");
    int64_t axis = a ? a->i : (opset_ >= 13 ? -1 : 1);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    return axis == static_cast<int64_t>(rank) - 1;
  }

  // The node producing `value` when `value` has one reader and is no graph output.
  const ir::Node* producer_read_once(const std::string& value) const {
    auto it = producers_.find(value);
    if (it == producers_.end() || !only_reader(readers_, value)) return nullptr;
    return &graph_.nodes[it->second];
  }

  // Whether the Add's operand `value` is the scores (from the MatMul, maybe scaled).
  bool is_scores_side(const std::string& value) const {
    const ir::Node* node = producer_read_once(value);
    std::string x;
    if (node && constant_factor(graph_, *node, x)) node = producer_read_once(x);
    return node && is_op(*node, "MatMul");
  }

  // Whether adding `mask` to `scores` keeps the scores' shape: same or lower rank, each dim 1
  // or the scores' own, the last one the scores' own (the fused op reads whole rows).
  bool mask_fits(const std::string& mask, const std::string& scores) const {
    const std::optional<std::vector<Dim>> ms = float32_dims(graph_, mask);
    const std::optional<std::vector<Dim>> ss = float32_dims(graph_, scores);
    if (!ms || !ss || ms->size() > ss->size() || ms->empty()) return false;
    auto same = [](const Dim& a, const Dim& b) {
      return (a.is_fixed() && a.value == b.value) || (!a.symbol.empty() && a.symbol == b.symbol);
    };
    const size_t offset = ss->size() - ms->size();
    for (size_t i = 0; i < ms->size(); ++i) {
      const Dim& d = (*ms)[i];
      const bool last = i + 1 == ms->size();
      if (!same(d, (*ss)[i + offset]) && (last || !(d.is_fixed() && d.value == 1))) return false;
    }
    return true;
  }

  // Follows a MatMul operand up through at most one Transpose and, when `scaled`, at most one
  // Mul or Div by a constant, each read only on the way: the value read in the end and the perm
  // that turns it into the operand.
  bool operand(const std::string& value, bool scaled, Match& m, std::string& source,
               std::vector<int64_t>& perm) const {
    source = value;
    bool transposed = false;
    for (const ir::Node* node = producer_read_once(source); node;
         node = producer_read_once(source)) {
      std::string x;
      std::optional<double> f;
      if (scaled && (f = constant_factor(graph_, *node, x))) {
        m.scale *= *f;
        scaled = false;
      } else if (!transposed && is_op(*node, "Transpose") && node->inputs.size() == 1 &&
                 node->outputs.size() == 1) {
        const std::optional<size_t> rank = attention_rank(graph_, node->inputs[0]);
        if (!rank) break;
        perm = transpose_perm(*node, *rank);
        if (perm.empty()) break;
        x = node->inputs[0];
        transposed = true;
      } else {
        break;
      }
      m.nodes.push_back(producers_.at(source));
      source = x;
    }
    const std::optional<size_t> rank = attention_rank(graph_, source);
    if (!rank) return false;
    if (!transposed) perm = identity(*rank);
    return true;
  }

  const ir::Graph& graph_;
  int opset_;
  Readers readers_;
  Producers producers_;
};

}  // namespace

void fuse_attention(ir::Graph& graph, int opset) {
  const Matcher matcher(graph, opset);
  ChainFusion fusion(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    std::optional<Match> m = matcher.match(i);
    if (!m || !fusion.free(m->nodes)) continue;
    ir::Node fused = fused_node(graph.nodes[i].name, kKilnDomain, kFusedAttentionOp,
                                {m->q, m->k, m->v, m->mask}, m->y);
    fused.attributes = {float_attribute("scale", static_cast<float>(m->scale)),
                        ints_attribute("q_perm", m->q_perm), ints_attribute("k_perm", m->k_perm),
                        ints_attribute("v_perm", m->v_perm), ints_attribute("y_perm", m->y_perm)};
    fusion.fuse(m->nodes, std::move(fused));
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
