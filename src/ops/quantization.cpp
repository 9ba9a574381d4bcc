// The quantization family's registration, and DynamicQuantizeLinear. QuantizeLinear and
// DequantizeLinear live in quantize_linear.cpp, QLinearMatMul in qlinear_matmul.cpp, QLinearConv
// and ConvInteger in conv_integer.cpp; quantization_common.h has what they share.
#include <string>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

// y_scale, y_zero_point and y as dynamic_quant_params and dynamic_quantize_u8 compute them
// (quantization_common.h).
CpuKernel make_dynamic_quantize_linear(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::Float32) {
      ctx.fail("x must be float32, got " + std::string(dtype_name(x.dtype())));
    }
    const DynamicQuantParams q = dynamic_quant_params(x.data<float>(), x.element_count());
    Tensor& y = ctx.allocate_output(0, DataType::UInt8, x.shape());
    dynamic_quantize_u8(x.data<float>(), x.element_count(), q, y.mutable_data<uint8_t>());
    if (ctx.wants_output(1)) {
      ctx.allocate_output(1, DataType::Float32, Shape{}).mutable_data<float>()[0] = q.scale;
    }
    if (ctx.wants_output(2)) {
      ctx.allocate_output(2, DataType::UInt8, Shape{}).mutable_data<uint8_t>()[0] =
          static_cast<uint8_t>(q.zero_point);
    }
  };
}

}  // namespace

KILN_CPU_OPS(quantization);
void register_quantization_ops(OpRegistry& registry) {
  registry.add("DynamicQuantizeLinear", make_dynamic_quantize_linear);
}

}  // namespace kiln
