// Fuses LayerNorm and RMSNorm as older exporters (PyTorch before opset 17, tf2onnx, Keras) spell
// them op by op into one com.microsoft node, over the trailing k axes of x:
//   LayerNorm: m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2) | Mul(d, d));
//              s = Sqrt(Add(v, eps)); n = Div(d, s) | Mul(d, Reciprocal(s));
//              [Mul(n, gamma)] [Add(·, beta)]                 -> LayerNormalization
//   RMSNorm:   v = ReduceMean(Pow(x, 2) | Mul(x, x)); a = Add(v, eps);
//              n = Div(x, Sqrt(a)) | Mul(x, Reciprocal(Sqrt(a))) | Mul(x, Pow(a, -0.5));
//              [Mul(n, gamma)]                                -> SimplifiedLayerNormalization
// The com.microsoft forms, not ai.onnx LayerNormalization (opset 17) or RMSNormalization (23):
// kiln runs them at any opset of the model. Their Scale input is required, so a norm without
// gamma gets a constant 1. Operands of Add and Mul may come in either order. Only float32, only
// keepdims reductions over the trailing axes, eps a constant scalar, gamma and beta constants
// that broadcast over the normalized dims alone (so the result keeps x's shape), and only values
// that nothing else reads disappear: the graph's results are unchanged.
#include <optional>
#include <set>
#include <string>

#include "ir/domains.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"
#include "passes/trailing_reduction.h"

namespace kiln::passes {
namespace {

struct Norm {
  std::vector<size_t> nodes;
  std::string x, y;
  int64_t axes = 0;  // the last `axes` dims are normalized
  float epsilon = 0;
  std::string gamma, beta;  // empty when absent
};

struct Context {
  const ir::Graph& graph;
  const Readers& readers;
  int opset;
};

// Whether the float32 constant `name` broadcast against x varies only along x's last `axes`
// dims and leaves x's shape as it is: rank at most x's, each dim 1 or (on those last dims) x's
// known size. The fused kernel broadcasts it over the normalized dims the same way.
bool is_row_parameter(const ir::Graph& graph, const std::string& name, const ValueInfo& x,
                      int64_t axes) {
  const Tensor* t = float32_constant(graph, name);
  if (!t || t->rank() > x.shape.size()) return false;
  const int64_t rank = static_cast<int64_t>(t->rank());
  for (int64_t i = 1; i <= rank; ++i) {
    const int64_t dim = t->shape()[rank - i];
    if (dim == 1) continue;
    const Dim& xd = x.shape[x.shape.size() - i];
    if (i > axes || !xd.is_fixed() || xd.value != dim) return false;
  }
  return true;
}

// The keepdims ReduceMean over the trailing dims that alone reads `value`, and how many.
std::optional<std::pair<size_t, int64_t>> trailing_mean_of(const Context& c,
                                                           const std::string& value, int64_t rank) {
  const auto mean = only_reader(c.readers, value);  // with the axes as an attribute or input
  if (!mean || !is_op(c.graph.nodes[*mean], "ReduceMean") ||
      c.graph.nodes[*mean].inputs[0] != value)
    return std::nullopt;
  const auto k = trailing_reduction(c.graph, c.graph.nodes[*mean], c.opset, rank);
  if (!k) return std::nullopt;
  return std::pair{*mean, *k};
}

// Whether `node` squares `value`: Pow(value, 2) or Mul(value, value).
bool squares(const Context& c, const ir::Node& node, const std::string& value) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.inputs[0] != value) return false;
  return (is_op(node, "Pow") && is_scalar(c.graph, node.inputs[1], 2.0)) ||
         (is_op(node, "Mul") && node.inputs[1] == value);
}

// From the mean of squares v = ReduceMean(square of `centred`) at `mean`: Add(v, eps), then
// centred / sqrt(·) in one of its spellings. Fills m.nodes, m.epsilon and m.y (the quotient).
bool match_scaling(const Context& c, size_t mean, const std::string& centred, Norm& m) {
  const ir::Graph& g = c.graph;
  const std::string& v = g.nodes[mean].outputs[0];
  const auto add = only_reader_op(g, c.readers, v, "Add", 2);
  if (!add) return false;
  const auto eps_name = other_operand(g.nodes[*add], v);
  if (!eps_name) return false;
  const auto eps = float32_scalar(g, *eps_name);
  const Tensor* eps_tensor = float32_constant(g, *eps_name);
  const ValueInfo* xi = g.find_value_info(m.x);
  if (!eps || eps_tensor->rank() > xi->shape.size()) return false;
  m.epsilon = *eps;
  m.nodes.push_back(mean);
  m.nodes.push_back(*add);
  const std::string& a = g.nodes[*add].outputs[0];
  // The node that multiplies `centred` by `factor` and alone reads the factor.
  auto multiplies = [&](const std::string& factor) -> std::optional<size_t> {
    const auto mul = only_reader_op(g, c.readers, factor, "Mul", 2);
    if (!mul || other_operand(g.nodes[*mul], factor) != centred) return std::nullopt;
    return mul;
  };
  std::optional<size_t> last;
  if (const auto sqrt = only_reader_op(g, c.readers, a, "Sqrt", 1)) {
    m.nodes.push_back(*sqrt);
    const std::string& s = g.nodes[*sqrt].outputs[0];
    if (const auto div = only_reader_op(g, c.readers, s, "Div", 2)) {
      if (g.nodes[*div].inputs[0] == centred && g.nodes[*div].inputs[1] == s) last = div;
    } else if (const auto recip = only_reader_op(g, c.readers, s, "Reciprocal", 1)) {
      m.nodes.push_back(*recip);
      last = multiplies(g.nodes[*recip].outputs[0]);
    }
  } else if (const auto pow = only_reader_op(g, c.readers, a, "Pow", 2)) {  // a ** -0.5
    if (g.nodes[*pow].inputs[0] != a || !is_scalar(g, g.nodes[*pow].inputs[1], -0.5)) return false;
    m.nodes.push_back(*pow);
    last = multiplies(g.nodes[*pow].outputs[0]);
  }
  if (!last) return false;
  m.nodes.push_back(*last);
  m.y = g.nodes[*last].outputs[0];
  return true;
}

// The constant p of op(m.y, p) when that node alone reads m.y and p is a row parameter (gamma,
// beta); m then ends after that node.
std::string take_row_parameter(const Context& c, const ValueInfo& x, const char* op, Norm& m) {
  const auto next = only_reader_op(c.graph, c.readers, m.y, op, 2);
  if (!next) return "";
  const auto p = other_operand(c.graph.nodes[*next], m.y);
  if (!p || *p == m.y || !is_row_parameter(c.graph, *p, x, m.axes)) return "";
  m.nodes.push_back(*next);
  m.y = c.graph.nodes[*next].outputs[0];
  return *p;
}

// x with a known shape and float32, or nullptr.
const ValueInfo* float32_with_rank(const ir::Graph& graph, const std::string& x) {
  const ValueInfo* info = graph.find_value_info(x);
  if (x.empty() || !info || !info->has_shape || info->dtype != DataType::Float32) return nullptr;
  return info;
}

// The LayerNorm from the ReduceMean at `index` (the mean of x).
std::optional<Norm> match_layer_norm(const Context& c, size_t index) {
  const ir::Graph& g = c.graph;
  const ir::Node& mean = g.nodes[index];
  if (!is_op(mean, "ReduceMean") || mean.inputs.empty()) return std::nullopt;
  Norm m;
  m.x = mean.inputs[0];
  const ValueInfo* x = float32_with_rank(g, m.x);
  if (!x) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  const auto k = trailing_reduction(g, mean, c.opset, rank);
  if (!k) return std::nullopt;
  m.axes = *k;
  const auto sub = only_reader_op(g, c.readers, mean.outputs[0], "Sub", 2);
  if (!sub || g.nodes[*sub].inputs[0] != m.x || g.nodes[*sub].inputs[1] != mean.outputs[0])
    return std::nullopt;
  const std::string& d = g.nodes[*sub].outputs[0];
  // d's readers: the square, and the division (or the product with the reciprocal).
  const auto it = c.readers.find(d);
  if (it == c.readers.end()) return std::nullopt;
  std::optional<size_t> square;
  for (size_t r : it->second) {
    if (r != kOutsideReader && squares(c, g.nodes[r], d)) square = r;
  }
  if (!square) return std::nullopt;
  const auto var = trailing_mean_of(c, g.nodes[*square].outputs[0], rank);
  if (!var || var->second != m.axes) return std::nullopt;
  m.nodes = {index, *sub, *square};
  if (!match_scaling(c, var->first, d, m) || !read_only_by(c.readers, d, {*square, m.nodes.back()}))
    return std::nullopt;
  m.gamma = take_row_parameter(c, *x, "Mul", m);
  m.beta = take_row_parameter(c, *x, "Add", m);
  return m;
}

// The RMSNorm from the square of x at `index`.
std::optional<Norm> match_rms_norm(const Context& c, size_t index) {
  const ir::Graph& g = c.graph;
  const ir::Node& square = g.nodes[index];
  if (square.inputs.empty() || !squares(c, square, square.inputs[0])) return std::nullopt;
  Norm m;
  m.x = square.inputs[0];
  const ValueInfo* x = float32_with_rank(g, m.x);
  if (!x) return std::nullopt;
  const auto var = trailing_mean_of(c, square.outputs[0], static_cast<int64_t>(x->shape.size()));
  if (!var) return std::nullopt;
  m.axes = var->second;
  m.nodes = {index};
  if (!match_scaling(c, var->first, m.x, m)) return std::nullopt;
  m.gamma = take_row_parameter(c, *x, "Mul", m);
  return m;
}

// The name of a float32 scalar 1 in the graph, added on first use: Scale for a norm without
// gamma.
class Ones {
 public:
  explicit Ones(ir::Graph& graph) : graph_(graph) {}
  const std::string& name() {
    if (name_.empty()) {
      const std::set<std::string> used = used_values(graph_);
      name_ = "kiln.norm_scale_one";
      while (used.count(name_) || graph_.initializers.count(name_)) name_ += "_";
      graph_.initializers[name_] = Tensor::from_data<float>({}, {1.0f});
    }
    return name_;
  }

 private:
  ir::Graph& graph_;
  std::string name_;
};

}  // namespace

void fuse_normalizations(ir::Graph& graph, int opset) {
  const Readers readers = find_readers(graph);
  const Context c{graph, readers, opset};
  Ones ones(graph);
  ChainFusion fusion(graph);
  // LayerNorms first: the variance of a LayerNorm is itself an RMSNorm of x - mean.
  for (bool centred : {true, false}) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const std::optional<Norm> m = centred ? match_layer_norm(c, i) : match_rms_norm(c, i);
      if (!m || !fusion.free(m->nodes)) continue;
      ir::Node norm = fused_node(graph.nodes[i].name, ir::kMicrosoftDomain,
                                 centred ? "LayerNormalization" : "SimplifiedLayerNormalization",
                                 {m->x, m->gamma.empty() ? ones.name() : m->gamma, m->beta}, m->y);
      norm.attributes = {int_attribute("axis", -m->axes), float_attribute("epsilon", m->epsilon)};
      fusion.fuse(m->nodes, std::move(norm));
    }
  }
  fusion.apply(graph);
}

}  // namespace kiln::passes
