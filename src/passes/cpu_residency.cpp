// CPU-residency analysis. Some inputs are read for their *contents* to decide an output's
// shape or which elements to touch (Reshape's shape, Slice's bounds, Reduce's axes, ...).
// A GPU backend must have those on the CPU, and so must every value they are computed from,
// up to a Shape/Size node (whose output depends only on a shape), a graph input or an
// initializer. Marking these at load time lets the plan keep such small subgraphs on the CPU
// instead of bouncing tiny tensors between devices.
#include <map>
#include <unordered_map>
#include <vector>

#include "passes/passes.h"

namespace kiln::passes {

namespace {

struct ShapeInputs {
  int since_opset;             // the rule applies from this opset on
  std::vector<size_t> inputs;  // input positions read for their contents
};

// Per op, newest rule last. Versioned because many of these were attributes in early opsets.
const std::map<std::string, std::vector<ShapeInputs>>& shape_deciding_inputs() {
  static const std::map<std::string, std::vector<ShapeInputs>> table = {
      {"Reshape", {{5, {1}}}},
      {"Expand", {{8, {1}}}},
      {"Tile", {{6, {1}}}},
      {"ConstantOfShape", {{9, {0}}}},
      {"Range", {{11, {0, 1, 2}}}},
      {"OneHot", {{9, {1}}}},
      {"TopK", {{10, {1}}}},
      {"Squeeze", {{13, {1}}}},
      {"Unsqueeze", {{13, {1}}}},
      {"Split", {{13, {1}}}},
      {"ReduceSum", {{13, {1}}}},
      {"ReduceMean", {{18, {1}}}},
      {"ReduceMax", {{18, {1}}}},
      {"ReduceMin", {{18, {1}}}},
      {"ReduceProd", {{18, {1}}}},
      {"ReduceL1", {{18, {1}}}},
      {"ReduceL2", {{18, {1}}}},
      {"ReduceLogSum", {{18, {1}}}},
      {"ReduceLogSumExp", {{18, {1}}}},
      {"ReduceSumSquare", {{18, {1}}}},
      {"Slice", {{10, {1, 2, 3, 4}}}},
      {"Pad", {{11, {1}}, {18, {1, 3}}}},
      {"Resize", {{10, {1}}, {11, {1, 2, 3}}}},
      {"Upsample", {{9, {1}}}},
      {"CumSum", {{11, {1}}}},
      {"CumProd", {{26, {1}}}},
      {"Trilu", {{14, {1}}}},
      {"NonMaxSuppression", {{10, {2, 3, 4}}}},
      {"MaxUnpool", {{9, {2}}}},
      {"Col2Im", {{18, {1, 2}}}},
      {"CenterCropPad", {{18, {1}}}},
      {"AffineGrid", {{20, {1}}}},
      {"DFT", {{17, {1}}, {20, {1, 2}}}},
      {"STFT", {{17, {1, 3}}}},
      {"HannWindow", {{17, {0}}}},
      {"HammingWindow", {{17, {0}}}},
      {"BlackmanWindow", {{17, {0}}}},
      {"MelWeightMatrix", {{17, {0, 1, 2, 3, 4}}}},
      {"SplitToSequence", {{11, {1}}}},
      {"Compress", {{9, {1}}}},
      {"If", {{1, {0}}}},
      {"Loop", {{1, {0, 1}}}},
      // Ops of other domains, named domain::op; their rules hold at every opset.
      {"kiln::SumToShape", {{0, {1}}}},
  };
  return table;
}

const std::vector<size_t>* rule_for(const ir::Node& node, int opset) {
  const std::string key = node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type;
  auto it = shape_deciding_inputs().find(key);
  if (it == shape_deciding_inputs().end()) return nullptr;
  const std::vector<size_t>* found = nullptr;
  for (const auto& rule : it->second) {
    if (opset >= rule.since_opset) found = &rule.inputs;
  }
  return found;
}

}  // namespace

std::set<std::string> cpu_resident_values(const ir::Model& model) {
  const ir::Graph& graph = model.graph;
  const int opset = model.opset_for("");
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
    if (const auto* inputs = rule_for(node, opset)) {
      for (size_t i : *inputs) {
        if (i < node.inputs.size()) mark(node.inputs[i]);
      }
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
    if (node.domain.empty() && (node.op_type == "Shape" || node.op_type == "Size")) continue;
    for (const auto& in : node.inputs) mark(in);
  }
  return resident;
}

}  // namespace kiln::passes
