// CPU-residency analysis. Some inputs are read for their *contents* to decide an output's
// shape or which elements to touch (Reshape's shape, Slice's bounds, Reduce's axes, ...).
// A GPU backend must have those on the CPU, and so must every value they are computed from,
// up to a Shape/Size node (whose output depends only on a shape), a graph input or an
// initializer. Marking these at load time lets the plan keep such small subgraphs on the CPU
// instead of bouncing tiny tensors between devices. Which inputs those are, by opset, is each
// op's definition (OpDef::shape_inputs).
#include <map>
#include <unordered_map>
#include <vector>

#include "opdefs/op_def.h"
#include "passes/passes.h"

namespace kiln::passes {

std::set<std::string> cpu_resident_values(const ir::Model& model) {
  const ir::Graph& graph = model.graph;
  std::unordered_map<std::string, const ir::Node*> producer;
  for (const auto& node : graph.nodes) {
    for (const auto& out : node.outputs) {
      if (!out.empty()) producer[out] = &node;
    }
  }
  std::set<std::string> resident;
  std::vector<std::string> work;
  auto mark = [&](const std::string& value) {
    if (!value.empty() && resident.insert(value).second) work.push_back(value);
  };
  for (const auto& node : graph.nodes) {
    const OpDef* def = OpDefs::global().find(node);
    if (!def) continue;
    for (size_t i : def->shape_deciding_inputs(model.opset_for(node.domain))) {
      if (i < node.inputs.size()) mark(node.inputs[i]);
    }
  }
  // Walk back to where the values come from; a Shape or Size node ends the walk, since it
  // needs only its input's shape, not its data.
  while (!work.empty()) {
    const std::string value = work.back();
    work.pop_back();
    auto it = producer.find(value);
    if (it == producer.end()) continue;  // graph input or initializer
    const ir::Node& node = *it->second;
    const OpDef* def = OpDefs::global().find(node);
    if (def && def->ends_shape_walk) continue;
    for (const auto& in : node.inputs) mark(in);
  }
  return resident;
}

}  // namespace kiln::passes
