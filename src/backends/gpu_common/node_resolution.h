// Device kernels resolve each run's problem (view shapes, Conv geometry, Resize axes, pool
// windows) with the op's definition (src/opdefs), as the CPU kernel does, so they take the same
// nodes and leave the CPU kernel the inputs it rejects, with its messages. These carry what the
// definitions need from load time into recording, whatever the backend's recorder.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "opdefs/node_info.h"

namespace kiln {

// The node and its opset, kept from load time for recording (the NodeInfo is gone by then).
struct NodeRef {
  explicit NodeRef(const NodeInfo& info) : node(&info.node()), opset(info.opset()) {}
  const ir::Node* node;
  int opset;
};

// Runs `parse` (a call of the definition's parse_*_attrs that keeps what it reads) for a
// placement factory. A node whose attributes the definition rejects stays on the CPU, whose
// kernel reports the same error when the model loads: false then, with the error in `reason`.
//
//   if (!attributes_accepted([&] { attrs = parse_myop_attrs(q.info); }, reason)) return nullptr;
template <class Parse>
bool attributes_accepted(Parse&& parse, std::string& reason) {
  try {
    parse();
    return true;
  } catch (const Error& e) {
    reason = std::string("the CPU kernel reports the attributes: ") + e.what();
    return false;
  }
}

// The inputs of the run `recorder` records, host tensors and device tensors, for a definition's
// shape rule: it reads the values of only the inputs whose contents decide shapes
// (DevicePlacementQuery::input_on_cpu), and the shapes of the rest.
template <class Recorder>
std::vector<Tensor> run_inputs(const Recorder& recorder) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < recorder.num_inputs(); ++k)
    inputs.push_back(recorder.input_for_shape_rule(k));
  return inputs;
}

// The output shape of a view op (Reshape, Flatten, Squeeze, Unsqueeze, Identity, inference
// Dropout) for these inputs, from the op's shape rule applied to this run's shapes and host
// values. RunOnCpu when the rule cannot fix every dim or the sizes disagree: the CPU kernel then
// reports the inputs in its own words.
Shape view_output_shape(const NodeRef& node, std::span<const Tensor> inputs);

// Records a view op: output 0 is input 0's device data under the shape the op's definition
// gives for this run.
template <class Recorder>
std::function<void(Recorder&)> record_view(const NodeInfo& info) {
  return [node = NodeRef(info)](Recorder& r) {
    r.output_view(0, 0, view_output_shape(node, run_inputs(r)));
  };
}

}  // namespace kiln
