// Device kernels resolve each run's problem (view shapes, Conv geometry, Resize axes, pool
// windows) with the CPU op's own code, so they take the same nodes as the CPU kernel and leave it
// the inputs it rejects, with its messages. These carry what that code needs from load time into
// recording, whatever the backend's recorder.
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "kernels/op_context.h"
#include "kernels/op_registry.h"

namespace kiln {

// The node and its opset, kept from load time for recording (the NodeInfo is gone by then).
struct NodeRef {
  explicit NodeRef(const NodeInfo& info) : node(&info.node()), opset(info.opset()) {}
  const ir::Node* node;
  int opset;
};

// The inputs of the run `recorder` records: host tensors and device tensors.
template <class Recorder>
std::vector<Tensor> run_inputs(const Recorder& recorder) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < recorder.num_inputs(); ++k) inputs.push_back(recorder.input(k));
  return inputs;
}

// An OpContext over one run's inputs for the CPU op's resolution code: it has no outputs, and
// allocating through it is a bug.
class ResolveContext {
 public:
  explicit ResolveContext(const NodeRef& node, std::vector<Tensor> inputs = {})
      : inputs_(std::move(inputs)), context_(*node.node, node.opset, inputs_, {}, allocator_) {}
  ResolveContext(const ResolveContext&) = delete;
  ResolveContext& operator=(const ResolveContext&) = delete;

  const OpContext& context() const { return context_; }
  const Tensor& input(size_t k) const { return inputs_[k]; }

 private:
  std::vector<Tensor> inputs_;
  NoOutputAllocator allocator_;
  OpContext context_;
};

// The output shape of a view op (Reshape, Flatten, Squeeze, Unsqueeze, Identity, inference
// Dropout) for these inputs, from the CPU kernel's own shape rules: `cpu_kernel` runs on a
// data-less stand-in for input 0, so it touches no data. kiln::Error for inputs the op rejects.
Shape view_output_shape(const CpuKernel& cpu_kernel, const NodeRef& node,
                        std::span<const Tensor> inputs);

// Records a view op: output 0 is input 0's device data under the shape the CPU kernel's rules
// give for this run.
template <class Recorder>
std::function<void(Recorder&)> record_view(const NodeInfo& info) {
  CpuKernel shape_rule = OpRegistry::global().find("", info.op_type())->factory(info);
  return [shape_rule, node = NodeRef(info)](Recorder& r) {
    r.output_view(0, 0, view_output_shape(shape_rule, node, run_inputs(r)));
  };
}

}  // namespace kiln
