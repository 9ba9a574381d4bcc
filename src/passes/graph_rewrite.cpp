#include "passes/graph_rewrite.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "passes/passes.h"

namespace kiln::passes {

std::set<std::string> used_values(const ir::Graph& graph) {
  std::set<std::string> used;
  for (const auto& node : graph.nodes) {
    for (const auto& in : node.inputs) {
      if (!in.empty()) used.insert(in);
    }
    for (const auto& name : implicit_inputs(node)) used.insert(name);
  }
  for (const auto& out : graph.outputs) used.insert(out.name);
  return used;
}

void rename_reads(ir::Graph& graph, const std::string& from, const std::string& to) {
  for (auto& node : graph.nodes) {
    for (auto& in : node.inputs) {
      if (in == from) in = to;
    }
  }
}

bool is_graph_output(const ir::Graph& graph, const std::string& value) {
  for (const auto& out : graph.outputs) {
    if (out.name == value) return true;
  }
  return false;
}

bool has_subgraph(const ir::Node& node) {
  for (const auto& a : node.attributes) {
    if (a.g || !a.graphs.empty()) return true;
  }
  return false;
}

bool is_op(const ir::Node& node, const char* op_type) {
  return node.domain.empty() && node.op_type == op_type;
}

bool is_float32(const ir::Graph& graph, const std::string& value) {
  const ValueInfo* info = graph.find_value_info(value);
  return info && info->dtype == DataType::Float32;
}

bool same_known_shape(const ir::Graph& graph, const std::string& a, const std::string& b) {
  const ValueInfo* ia = graph.find_value_info(a);
  const ValueInfo* ib = graph.find_value_info(b);
  if (!ia || !ib || !ia->has_shape || !ib->has_shape || ia->shape != ib->shape) return false;
  for (const Dim& d : ia->shape) {
    if (!d.is_fixed() && d.symbol.empty()) return false;
  }
  return true;
}

Readers find_readers(const ir::Graph& graph) {
  Readers readers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& node = graph.nodes[i];
    for (const auto& in : node.inputs) {
      if (!in.empty()) readers[in].push_back(i);
    }
    for (const auto& in : implicit_inputs(node)) readers[in].push_back(kOutsideReader);
  }
  for (const auto& out : graph.outputs) readers[out.name].push_back(kOutsideReader);
  return readers;
}

Producers find_producers(const ir::Graph& graph) {
  Producers producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const auto& out : graph.nodes[i].outputs) producer[out] = i;
  }
  return producer;
}

std::optional<size_t> only_reader(const Readers& readers, const std::string& value) {
  auto it = readers.find(value);
  if (it == readers.end() || it->second.size() != 1 || it->second[0] == kOutsideReader)
    return std::nullopt;
  return it->second[0];
}

std::optional<size_t> only_reader_op(const ir::Graph& graph, const Readers& readers,
                                     const std::string& value, const char* op_type, size_t inputs) {
  const std::optional<size_t> r = only_reader(readers, value);
  if (!r) return std::nullopt;
  const ir::Node& node = graph.nodes[*r];
  if (!is_op(node, op_type) || node.inputs.size() != inputs || node.outputs.size() != 1)
    return std::nullopt;
  return r;
}

bool read_only_by(const Readers& readers, const std::string& value,
                  const std::vector<size_t>& nodes) {
  auto it = readers.find(value);
  if (it == readers.end()) return true;
  return std::all_of(it->second.begin(), it->second.end(), [&](size_t r) {
    return std::find(nodes.begin(), nodes.end(), r) != nodes.end();
  });
}

std::optional<std::string> other_operand(const ir::Node& node, const std::string& value) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
  if (node.inputs[0] == value) return node.inputs[1];
  if (node.inputs[1] == value) return node.inputs[0];
  return std::nullopt;
}

const Tensor* float32_constant(const ir::Graph& graph, const std::string& name) {
  auto it = graph.initializers.find(name);
  if (it == graph.initializers.end() || it->second.dtype() != DataType::Float32) return nullptr;
  return &it->second;
}

std::optional<float> float32_scalar(const ir::Graph& graph, const std::string& name) {
  const Tensor* t = float32_constant(graph, name);
  if (!t || t->element_count() != 1) return std::nullopt;
  return t->data<float>()[0];
}

bool is_scalar(const ir::Graph& graph, const std::string& name, double value) {
  const std::optional<float> v = float32_scalar(graph, name);
  return v && std::fabs(*v - value) <= 1e-6 * std::fabs(value);
}

bool ChainFusion::free(const std::vector<size_t>& chain) const {
  return std::none_of(chain.begin(), chain.end(), [&](size_t n) { return removed_[n]; });
}

void ChainFusion::fuse(const std::vector<size_t>& chain, ir::Node fused) {
  for (size_t n : chain) removed_[n] = true;
  replacement_[*std::max_element(chain.begin(), chain.end())] = std::move(fused);
}

void ChainFusion::apply(ir::Graph& graph) {
  if (replacement_.empty()) return;
  std::vector<ir::Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    auto it = replacement_.find(i);
    if (it != replacement_.end()) {
      nodes.push_back(std::move(it->second));
    } else if (!removed_[i]) {
      nodes.push_back(std::move(graph.nodes[i]));
    }
  }
  graph.nodes = std::move(nodes);
}

ir::Node fused_node(const std::string& name, const std::string& domain, const std::string& op_type,
                    std::vector<std::string> inputs, const std::string& output) {
  ir::Node node;
  node.name = name;
  node.domain = domain;
  node.op_type = op_type;
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  node.inputs = std::move(inputs);
  node.outputs = {output};
  return node;
}

ir::Attribute int_attribute(const std::string& name, int64_t value) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Int;
  a.i = value;
  return a;
}

ir::Attribute float_attribute(const std::string& name, float value) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Float;
  a.f = value;
  return a;
}

ir::Attribute ints_attribute(const std::string& name, std::vector<int64_t> values) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Ints;
  a.ints = std::move(values);
  return a;
}

ir::Attribute string_attribute(const std::string& name, const std::string& value) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::String;
  a.s = value;
  return a;
}

}  // namespace kiln::passes
