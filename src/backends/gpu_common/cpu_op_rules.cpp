#include "backends/gpu_common/cpu_op_rules.h"

#include "core/tensor_impl.h"
#include "ir/graph.h"

namespace kiln {
namespace {

// Lets a view kernel produce its output's shape without touching any data.
class ShapeOnly final : public OutputAllocator {
 public:
  Tensor allocate(size_t, DataType, const Shape&) override {
    throw Error("a view op allocated data");
  }
  Tensor view(size_t, const Tensor& source, const Shape& shape) override {
    return source.reshaped(shape);
  }
};

}  // namespace

Shape view_output_shape(const CpuKernel& cpu_kernel, const NodeRef& node,
                        std::span<const Tensor> inputs) {
  std::vector<Tensor> stand_ins(inputs.begin(), inputs.end());
  stand_ins[0] =
      Tensor(std::make_shared<TensorImpl>(inputs[0].dtype(), inputs[0].shape(), nullptr));
  std::vector<Tensor> outputs(node.node->outputs.size());
  ShapeOnly allocator;
  OpContext ctx(*node.node, node.opset, stand_ins, outputs, allocator);
  cpu_kernel(ctx);
  // The kernel either made a view (its shape) or handed the input over (Identity).
  return outputs[0].shape();
}

}  // namespace kiln
