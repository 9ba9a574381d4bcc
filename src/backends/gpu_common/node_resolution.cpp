#include "backends/gpu_common/node_resolution.h"

#include "kernels/device_backend.h"
#include "opdefs/op_def.h"

namespace kiln {

Shape view_output_shape(const NodeRef& node, std::span<const Tensor> inputs) {
  const OpDef* def = OpDefs::global().find(*node.node);
  if (!def || !def->infer || inputs.empty())
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "no shape rule for this view");
  // Input 0 is the data (possibly on the device): only its shape is read. The others (shape,
  // axes) are host values the rule reads as constants.
  std::vector<ValueInfo> types(inputs.size());
  std::vector<const ValueInfo*> known;
  std::vector<const Tensor*> values;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& t = inputs[k];
    if (!t.defined()) {
      known.push_back(nullptr);
      values.push_back(nullptr);
      continue;
    }
    std::vector<Dim> dims;
    for (int64_t d : t.shape()) dims.push_back(fixed_dim(d));
    types[k] = tensor_type(t.dtype(), std::move(dims));
    known.push_back(&types[k]);
    values.push_back(k == 0 ? nullptr : &t);
  }
  const NodeInfo info(*node.node, node.opset, values);
  // The rule's kiln::Error, for inputs the op rejects, is the run's error, as on the CPU.
  const std::vector<ValueInfo> outs = def->infer(InferenceContext(info, known));
  Shape shape;
  if (!outs.empty() && outs[0].has_shape) {
    for (const Dim& d : outs[0].shape) {
      if (!d.is_fixed())
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "the view's shape is not fixed by its inputs");
      shape.push_back(d.value);
    }
  }
  if (outs.empty() || !outs[0].has_shape ||
      shape.element_count() != inputs[0].shape().element_count()) {
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "inputs the view's shape rule rejects");
  }
  return shape;
}

}  // namespace kiln
