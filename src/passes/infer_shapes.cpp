// Shape and type inference, keeping symbolic dims by name ("batch"). Each op's rule is its
// definition's (opdefs/); values no rule covers stay unknown. The CPU kernels compute real
// shapes at run time, and the shape check (Worker option verify_shapes, `kiln test-onnx
// --verify-shapes`) holds them to what inference predicted.
#include <map>
#include <set>

#include "opdefs/op_def.h"
#include "passes/passes.h"

namespace kiln::passes {

namespace {

struct Known {
  std::map<std::string, ValueInfo> values;
  const ir::Graph* graph = nullptr;
  const ValueInfo* get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
  const Tensor* constant(const std::string& name) const {
    auto it = graph->initializers.find(name);
    return it == graph->initializers.end() ? nullptr : &it->second;
  }
};

// The node's outputs as its definition's rule infers them; none when it has no rule or the
// rule rejects the node (the kernel reports that at run time).
std::vector<ValueInfo> infer_node(const ir::Node& node, const Known& k,
                                  const std::map<std::string, int>& opsets) {
  const OpDef* def = OpDefs::global().find(node);
  if (!def || !def->infer) return {};
  std::vector<const Tensor*> constants;
  std::vector<const ValueInfo*> inputs;
  for (const std::string& name : node.inputs) {
    constants.push_back(name.empty() ? nullptr : k.constant(name));
    inputs.push_back(name.empty() ? nullptr : k.get(name));
  }
  auto it = opsets.find(ir::canonical_domain(node.domain));
  const NodeInfo info(node, it == opsets.end() ? 0 : it->second, constants, &opsets);
  try {
    return def->infer(InferenceContext(info, inputs));
  } catch (const Error&) {
    return {};
  }
}

void infer_graph(ir::Graph& graph, const std::map<std::string, int>& opsets, Known k) {
  k.graph = &graph;
  for (const auto& v : graph.inputs) k.values[v.name] = v;
  for (const auto& v : graph.value_infos) k.values[v.name] = v;  // declared by the exporter
  for (const auto& [name, t] : graph.initializers) {
    ValueInfo v = tensor_type(t.dtype(), {});
    v.name = name;
    for (int64_t d : t.shape()) v.shape.push_back(fixed_dim(d));
    k.values[name] = v;
  }
  for (auto& node : graph.nodes) {
    // Subgraphs first: If, Loop and Scan take their outputs' types from their bodies'.
    for (auto& a : node.attributes) {
      if (a.g) infer_graph(*a.g, opsets, k);
      for (auto& g : a.graphs) infer_graph(*g, opsets, k);
    }
    const std::vector<ValueInfo> outs = infer_node(node, k, opsets);
    for (size_t i = 0; i < outs.size() && i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty() || outs[i].dtype == DataType::Undefined) continue;
      ValueInfo v = outs[i];
      v.name = node.outputs[i];
      auto declared = k.values.find(v.name);
      // An exporter's declaration with a known shape wins over a less precise inference.
      if (declared != k.values.end() && declared->second.has_shape && !v.has_shape) continue;
      k.values[v.name] = v;
    }
  }
  std::set<std::string> io;
  for (const auto& v : graph.inputs) io.insert(v.name);
  graph.value_infos.clear();
  for (const auto& [name, v] : k.values) {
    if (io.count(name) || graph.initializers.count(name)) continue;
    graph.value_infos.push_back(v);
  }
  // Graph outputs take the inferred type where the file left it out.
  for (auto& out : graph.outputs) {
    auto it = k.values.find(out.name);
    if (it == k.values.end()) continue;
    if (out.dtype == DataType::Undefined) out.dtype = it->second.dtype;
    if (!out.has_shape && it->second.has_shape) {
      out.has_shape = true;
      out.shape = it->second.shape;
    }
  }
}

}  // namespace

void infer_shapes(ir::Model& model) { infer_graph(model.graph, model.opsets, Known{}); }

}  // namespace kiln::passes
