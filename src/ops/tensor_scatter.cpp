// TensorScatter (opset 24): writes `update` into a copy of a key/value cache along the
// sequence axis, at a per-batch position: present = past; present[b, ..., w[b] + i, ...] =
// update[b, ..., i, ...]. In "circular" mode the position wraps around the cache length
// (a ring buffer); in "linear" mode it must stay inside the cache.
#include <algorithm>
#include <string>

#include "backends/cpu/strided_copy.h"
#include "core/element_storage.h"
#include "kernels/op_registry.h"
#include "opdefs/tensor_scatter.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

CpuKernel make_tensor_scatter(const NodeInfo& info) {
  const tensor_scatter::Attributes attrs = tensor_scatter::parse_attributes(info);
  return [attrs](OpContext& ctx) {
    const Tensor &past = ctx.input(0), &update = ctx.input(1);
    const std::vector<StridedCopy> copies =
        tensor_scatter::plan_update_copies({ctx.node(), ctx.inputs()}, attrs);
    Tensor& out = ctx.allocate_output(0, past.dtype(), past.shape());
    if (past.element_count() == 0) return;
    visit_storage(past.dtype(), [&]<class S>() {
      const S* src = static_cast<const S*>(past.raw_data());
      std::copy(src, src + past.element_count(), static_cast<S*>(out.mutable_raw_data()));
    });
    const size_t element =
        past.dtype() == DataType::String ? sizeof(std::string) : dtype_size(past.dtype());
    const auto* upd = static_cast<const char*>(update.raw_data());
    auto* dst = static_cast<char*>(out.mutable_raw_data());
    for (const StridedCopy& c : copies) {
      cpu::strided_copy(past.dtype(), Shape(c.shape), dst + c.out_offset * element,
                        Shape(c.out_strides), upd + c.in_offset * element, Shape(c.in_strides));
    }
  };
}

}  // namespace

KILN_CPU_OPS(tensor_scatter);
void register_tensor_scatter_ops(OpRegistry& registry) {
  registry.add("TensorScatter", make_tensor_scatter);
}

}  // namespace kiln
