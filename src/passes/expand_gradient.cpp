// Expands ai.onnx.preview.training::Gradient nodes at load time into the nodes that compute
// the gradients, by reverse-mode differentiation of the graph.
//
// Gradient(xs, zs, y) outputs dy/dx for each x in xs, where y is computed in the same graph
// from xs and zs. Its inputs give the values of xs then zs to differentiate at: usually the
// very values named in xs and zs, but they may be others, in which case the forward nodes
// between them and y are evaluated once more on the given values.
//
// The expansion walks back from y to xs and zs (the "tape": the nodes y depends on, in
// evaluation order), seeds dy/dy with ones, and runs each differentiable node's rule
// (gradient_rules.cpp) in reverse order, summing the gradients of values read several times.
// An x that y does not depend on gets zeros.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/domains.h"
#include "passes/expand_gradient.h"
#include "passes/gradient_rules.h"
#include "passes/passes.h"

namespace kiln::passes {

namespace {

bool is_gradient_node(const ir::Node& node) {
  return node.domain == ir::kOnnxTrainingDomain && node.op_type == "Gradient";
}

// The attributes of a Gradient node, checked against its inputs and outputs.
struct GradientRequest {
  std::vector<std::string> xs, zs;
  std::string y;
};

std::vector<std::string> strings_attribute(const ir::Node& node, const std::string& name,
                                           bool required, const std::string& where) {
  const ir::Attribute* a = node.find_attribute(name);
  if (!a) {
    if (required) throw Error(where + "needs the attribute '" + name + "'");
    return {};
  }
  if (a->type != ir::Attribute::Type::Strings) {
    throw Error(where + "attribute '" + name + "' must be a list of strings");
  }
  return a->strings;
}

GradientRequest parse_request(const ir::Node& node, const std::string& where) {
  GradientRequest r;
  r.xs = strings_attribute(node, "xs", true, where);
  r.zs = strings_attribute(node, "zs", false, where);
  const ir::Attribute* y = node.find_attribute("y");
  if (!y || y->type != ir::Attribute::Type::String || y->s.empty()) {
    throw Error(where + "needs the string attribute 'y' naming the differentiated tensor");
  }
  r.y = y->s;
  if (r.xs.empty()) throw Error(where + "attribute 'xs' names no tensor");
  std::set<std::string> seen;
  for (const auto* names : {&r.xs, &r.zs}) {
    for (const auto& name : *names) {
      if (name.empty()) throw Error(where + "'xs' and 'zs' must not hold empty names");
      if (!seen.insert(name).second) {
        throw Error(where + "'" + name + "' appears more than once in 'xs' and 'zs'");
      }
    }
  }
  const size_t expected = r.xs.size() + r.zs.size();
  if (node.inputs.size() != expected) {
    throw Error(where + "has " + std::to_string(node.inputs.size()) +
                " inputs, but 'xs' and 'zs' name " + std::to_string(expected) + " tensors");
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) throw Error(where + "input " + std::to_string(i) + " is missing");
  }
  if (node.outputs.size() > r.xs.size()) {
    throw Error(where + "has " + std::to_string(node.outputs.size()) +
                " outputs, but 'xs' names only " + std::to_string(r.xs.size()) + " tensors");
  }
  return r;
}

// Every name the graph's nodes and graph inputs define or read, so that new names avoid them.
std::set<std::string> names_in_use(const ir::Graph& graph) {
  std::set<std::string> names;
  for (const auto& v : graph.inputs) names.insert(v.name);
  for (const auto& v : graph.outputs) names.insert(v.name);
  for (const auto& [name, t] : graph.initializers) names.insert(name);
  for (const auto& node : graph.nodes) {
    names.insert(node.name);
    for (const auto& in : node.inputs) names.insert(in);
    for (const auto& out : node.outputs) names.insert(out);
    for (const auto& in : ir::implicit_inputs(node)) names.insert(in);
  }
  return names;
}

// Everything a node reads: its inputs and the outer values its subgraphs read.
std::vector<std::string> reads_of(const ir::Node& node) {
  std::vector<std::string> reads;
  for (const auto& in : node.inputs) {
    if (!in.empty()) reads.push_back(in);
  }
  for (const auto& in : ir::implicit_inputs(node)) reads.push_back(in);
  return reads;
}

class GradientExpander {
 public:
  GradientExpander(ir::Graph& graph, const std::string& path) : graph_(graph), path_(path) {}

  // Expands the graph's Gradient nodes, each once the nodes its y depends on hold no other
  // Gradient node (a Gradient of a Gradient's output needs the inner one expanded first).
  void run() {
    for (;;) {
      bool pending = false, expanded = false;
      for (size_t i = 0; i < graph_.nodes.size() && !expanded; ++i) {
        if (!is_gradient_node(graph_.nodes[i])) continue;
        pending = true;
        expanded = try_expand(i);
      }
      if (!pending) return;
      if (!expanded) {
        throw Error(path_ + ": Gradient nodes depend on each other's outputs in a cycle");
      }
    }
  }

 private:
  std::string where(const ir::Node& node) const { return path_ + ": " + node.describe() + ": "; }

  std::map<std::string, size_t> producers() const {
    std::map<std::string, size_t> p;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      for (const auto& out : graph_.nodes[i].outputs) {
        if (!out.empty()) p[out] = i;
      }
    }
    return p;
  }

  // The indices of the nodes `y` depends on, stopping at `leaves`, in evaluation order.
  std::vector<size_t> tape_for(const std::string& y, const std::set<std::string>& leaves,
                               const std::string& where) const {
    const auto producer = producers();
    enum class State { kNew, kVisiting, kDone };
    std::vector<State> state(graph_.nodes.size(), State::kNew);
    std::vector<size_t> order;
    // Iterative depth-first search: a deep graph must not overflow the stack.
    struct Frame {
      size_t node;
      std::vector<std::string> reads;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    auto enter = [&](const std::string& value) {
      if (leaves.count(value)) return;
      auto it = producer.find(value);
      if (it == producer.end()) return;  // a graph input, initializer or outer value
      const size_t n = it->second;
      if (state[n] == State::kDone) return;
      if (state[n] == State::kVisiting) {
        throw Error(where + "the graph computing '" + y + "' has a cycle through " +
                    graph_.nodes[n].describe());
      }
      state[n] = State::kVisiting;
      stack.push_back(Frame{n, reads_of(graph_.nodes[n])});
    };
    enter(y);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.reads.size()) {
        enter(top.reads[top.next++]);  // may grow the stack: `top` is not used after this
        continue;
      }
      state[top.node] = State::kDone;
      order.push_back(top.node);
      stack.pop_back();
    }
    return order;
  }

  bool try_expand(size_t index) {
    const ir::Node gradient_node = graph_.nodes[index];
    const std::string at = where(gradient_node);
    const GradientRequest request = parse_request(gradient_node, at);
    std::set<std::string> leaves(request.xs.begin(), request.xs.end());
    leaves.insert(request.zs.begin(), request.zs.end());
    const std::vector<size_t> tape = tape_for(request.y, leaves, at);
    for (size_t n : tape) {
      if (is_gradient_node(graph_.nodes[n])) return false;  // expand that one first
    }

    std::set<std::string> taken = names_in_use(graph_);
    const std::string prefix =
        (gradient_node.name.empty() ? std::string("Gradient") : gradient_node.name) + "/";
    gradient::NodeEmitter emit(prefix, taken);

    // The values to differentiate at: the Gradient's inputs stand for xs and zs, and forward
    // nodes reading a substituted value are evaluated again on it.
    std::map<std::string, std::string> value_of;
    for (size_t i = 0; i < request.xs.size(); ++i)
      value_of[request.xs[i]] = gradient_node.inputs[i];
    for (size_t i = 0; i < request.zs.size(); ++i) {
      value_of[request.zs[i]] = gradient_node.inputs[request.xs.size() + i];
    }
    auto value = [&](const std::string& name) {
      auto it = value_of.find(name);
      return it == value_of.end() ? name : it->second;
    };
    std::vector<ir::Node> forward;  // tape nodes with their inputs and outputs as evaluated
    for (size_t n : tape) {
      ir::Node node = graph_.nodes[n];
      bool substituted = false;
      for (auto& in : node.inputs) {
        if (!in.empty() && value(in) != in) {
          in = value(in);
          substituted = true;
        }
      }
      for (const auto& in : ir::implicit_inputs(node)) {
        if (value(in) != in) {
          throw Error(at + "cannot evaluate " + node.describe() +
                      " again at the Gradient's inputs: its subgraph reads '" + in + "'");
        }
      }
      if (substituted) {
        node.name = emit.fresh(node.name.empty() ? node.op_type : node.name);
        for (auto& out : node.outputs) {
          if (out.empty()) continue;
          const std::string renamed = emit.fresh(out);
          value_of[out] = renamed;
          out = renamed;
        }
        emit.add_node(node);
      }
      forward.push_back(std::move(node));
    }

    // Which values depend on xs: only those carry gradients.
    std::set<std::string> active(request.xs.begin(), request.xs.end());
    for (size_t k = 0; k < tape.size(); ++k) {
      const ir::Node& node = graph_.nodes[tape[k]];
      bool depends = false;
      for (const auto& in : reads_of(node)) depends |= active.count(in) > 0;
      if (!depends) continue;
      for (const auto& out : node.outputs) {
        if (!out.empty()) active.insert(out);
      }
    }

    std::map<std::string, std::vector<std::string>> grads;  // by original value name
    auto total = [&](const std::string& name) -> std::string {
      auto it = grads.find(name);
      if (it == grads.end() || it->second.empty()) return "";
      return it->second.size() == 1 ? it->second[0] : emit.add("Sum", it->second);
    };
    if (active.count(request.y))
      grads[request.y].push_back(emit.filled_like(1.0f, value(request.y)));

    for (size_t k = tape.size(); k-- > 0;) {
      const ir::Node& node = graph_.nodes[tape[k]];
      if (node.outputs.empty() || !active.count(node.outputs[0])) continue;
      bool has_gradient = false;
      for (const auto& out : node.outputs) has_gradient |= grads.count(out) > 0;
      if (!has_gradient) continue;
      const gradient::BackwardRule* rule = gradient::find_rule(node);
      if (!rule) {
        throw Error(at + "cannot differentiate " + node.describe() + " (operator '" +
                    (node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type) +
                    "'): kiln has no gradient for it");
      }
      std::vector<bool> needs;
      for (const auto& in : node.inputs) needs.push_back(!in.empty() && active.count(in) > 0);
      const std::vector<std::string> in_grads =
          (*rule)(forward[k], total(node.outputs[0]), needs, emit);
      for (size_t i = 0; i < node.inputs.size() && i < in_grads.size(); ++i) {
        if (needs[i] && !in_grads[i].empty()) grads[node.inputs[i]].push_back(in_grads[i]);
      }
    }

    for (size_t i = 0; i < gradient_node.outputs.size(); ++i) {
      const std::string& out = gradient_node.outputs[i];
      if (out.empty()) continue;
      std::string g = total(request.xs[i]);
      // y does not depend on this x (or only through ops without a gradient): zeros.
      if (g.empty()) g = emit.filled_like(0.0f, value(request.xs[i]));
      emit.add_named("Identity", {g}, {out});
    }

    std::vector<ir::Node>& added = emit.nodes();
    graph_.nodes.erase(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(index));
    graph_.nodes.insert(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(index),
                        std::make_move_iterator(added.begin()),
                        std::make_move_iterator(added.end()));
    return true;
  }

  ir::Graph& graph_;
  const std::string& path_;
};

void expand_in_graph(ir::Graph& graph, const std::string& path) {
  for (auto& node : graph.nodes) {
    for (auto& a : node.attributes) {
      if (a.g) expand_in_graph(*a.g, path);
      for (auto& g : a.graphs) expand_in_graph(*g, path);
    }
  }
  GradientExpander(graph, path).run();
}

}  // namespace

void expand_gradients(ir::Model& model) { expand_in_graph(model.graph, model.path); }

}  // namespace kiln::passes
