// ONNX Runtime's QLinearLeakyRelu and QLinearSigmoid (com.microsoft): an element-wise function of
// an int8 or uint8 tensor, requantized. With 256 possible inputs, each op builds the table of its
// 256 results (build_qlinear_table: dequantize, apply, quantize with ties to even and saturation)
// in each run (256 evaluations, against one per element) and maps every element through it.
//
//   inputs: X, X_scale, X_zero_point?, Y_scale, Y_zero_point?   (per-tensor parameters)
//   QLinearLeakyRelu: alpha (default 0.01)
#include <array>
#include <functional>
#include <string>

#include "backends/cpu/vector_math.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

using Table = std::array<uint8_t, 256>;
using Transform = std::function<void(float*)>;  // 256 floats in place

Table table_for(const OpContext& ctx, DataType t, const Transform& f) {
  const QuantScalar x = quant_scalar(ctx, 1, 2, t, "X");
  const QuantScalar y = quant_scalar(ctx, 3, 4, t, "Y");
  Table table;
  build_qlinear_table(t, x, y, f, table.data());
  return table;
}

CpuKernel lookup_kernel(Transform f) {
  return [f = std::move(f)](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    if (t != DataType::Int8 && t != DataType::UInt8) {
      ctx.fail("X must be int8 or uint8, got " + std::string(dtype_name(t)));
    }
    const Table table = table_for(ctx, t, f);
    Tensor& y = ctx.allocate_output(0, t, x.shape());
    apply_qlinear_table(table.data(), static_cast<const uint8_t*>(x.raw_data()),
                        static_cast<uint8_t*>(y.mutable_raw_data()), x.element_count());
  };
}

CpuKernel make_qlinear_leaky_relu(const NodeInfo& info) {
  const float alpha = info.attr_float("alpha", 0.01f);
  return lookup_kernel([alpha](float* v) {
    for (int i = 0; i < 256; ++i) v[i] = v[i] >= 0.0f ? v[i] : alpha * v[i];
  });
}

CpuKernel make_qlinear_sigmoid(const NodeInfo&) {
  return lookup_kernel([](float* v) { cpu::sigmoid_f32(v, v, 256); });
}

}  // namespace

KILN_CPU_OPS(qlinear_lookup);
void register_qlinear_lookup_ops(OpRegistry& registry) {
  registry.add(ir::kMicrosoftDomain, "QLinearLeakyRelu", make_qlinear_leaky_relu);
  registry.add(ir::kMicrosoftDomain, "QLinearSigmoid", make_qlinear_sigmoid);
}

}  // namespace kiln
