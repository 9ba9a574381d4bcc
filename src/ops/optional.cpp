// Optional values: Optional, OptionalHasElement, OptionalGetElement.
#include "kernels/op_registry.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

CpuKernel make_optional(const NodeInfo& info) {
  // Without an input, the `type` attribute says what the empty optional would hold.
  DataType dtype = DataType::Undefined;
  ValueKind element_kind = ValueKind::Tensor;
  if (const ir::Attribute* type = info.attr("type")) {
    dtype = type->type_proto.dtype;
    if (type->type_proto.kind == ValueInfo::Kind::Sequence) element_kind = ValueKind::Sequence;
  } else if (!info.has_input(0)) {
    info.fail("needs an input or the 'type' attribute");
  }
  return [=](OpContext& ctx) {
    if (ctx.has_input(0)) {
      ctx.set_output(0, Tensor::optional(ctx.input(0)));
    } else {
      ctx.set_output(0, Tensor::empty_optional(dtype, element_kind));
    }
  };
}

// Since opset 18 both ops also take a plain tensor or sequence, which counts as present.
CpuKernel make_optional_has_element(const NodeInfo&) {
  return [](OpContext& ctx) {
    bool present = false;
    if (ctx.has_input(0)) {
      const Tensor& in = ctx.input(0);
      present = in.kind() != ValueKind::Optional || in.has_value();
    }
    ctx.allocate_output(0, DataType::Bool, Shape{}).mutable_data<bool>()[0] = present;
  };
}

CpuKernel make_optional_get_element(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& in = ctx.input(0);
    if (in.kind() != ValueKind::Optional) {
      ctx.set_output(0, in);
    } else if (!in.has_value()) {
      ctx.fail("the optional input holds no value");
    } else {
      ctx.set_output(0, in.value());
    }
  };
}

}  // namespace

KILN_CPU_OPS(optional);
void register_optional_ops(OpRegistry& registry) {
  registry.add("Optional", make_optional);
  registry.add("OptionalHasElement", make_optional_has_element);
  registry.add("OptionalGetElement", make_optional_get_element);
}

}  // namespace kiln
