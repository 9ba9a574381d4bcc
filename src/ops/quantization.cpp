// The quantization family's registration, and DynamicQuantizeLinear. QuantizeLinear and
// DequantizeLinear live in quantize_linear.cpp, QLinearMatMul in qlinear_matmul.cpp, QLinearConv
// and ConvInteger in conv_integer.cpp; quantization_common.h has what they share.
#include <algorithm>
#include <cmath>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

// y_scale = (max(0, max x) - min(0, min x)) / 255, y_zero_point = round(clamp(-min / y_scale)),
// y = saturate(round(x / y_scale) + y_zero_point), all in float32 as the ONNX function body
// computes it. An all-zero range gets scale 1 (ONNX's reference), so nothing divides by zero.
// NaN elements do not take part in the range and quantize to 0, as QuantizeLinear does.
CpuKernel make_dynamic_quantize_linear(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::Float32) {
      ctx.fail("x must be float32, got " + std::string(dtype_name(x.dtype())));
    }
    const float* px = x.data<float>();
    const int64_t n = x.element_count();
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(px[i])) continue;
      lo = std::min(lo, px[i]);
      hi = std::max(hi, px[i]);
    }
    const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    float zero_point = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
    // Both infinities give inf / inf: a NaN zero point, which converting to uint8 is undefined
    // for. 0, as NaN quantizes elsewhere.
    if (std::isnan(zero_point)) zero_point = 0.0f;

    Tensor& y = ctx.allocate_output(0, DataType::UInt8, x.shape());
    uint8_t* py = y.mutable_data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      const float q = std::nearbyint(px[i] / scale) + zero_point;
      py[i] = static_cast<uint8_t>(rint_clamped(q, 0, 255));
    }
    if (ctx.wants_output(1)) {
      ctx.allocate_output(1, DataType::Float32, Shape{}).mutable_data<float>()[0] = scale;
    }
    if (ctx.wants_output(2)) {
      ctx.allocate_output(2, DataType::UInt8, Shape{}).mutable_data<uint8_t>()[0] =
          static_cast<uint8_t>(zero_point);
    }
  };
}

}  // namespace

KILN_CPU_OPS(quantization);
void register_quantization_ops(OpRegistry& registry) {
  registry.add("DynamicQuantizeLinear", make_dynamic_quantize_linear);
}

}  // namespace kiln
