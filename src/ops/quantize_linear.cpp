// QuantizeLinear and DequantizeLinear, every opset (10 to 25): per-tensor, per-axis and blocked
// parameters, output_dtype, precision and saturate.
//
//   QuantizeLinear    y = saturate(round_half_even(x / y_scale) + y_zero_point)
//   DequantizeLinear  y = (x - x_zero_point) * x_scale
//
// The arithmetic follows ONNX's reference implementation step by step (which precision each
// operation rounds to), so that results are bit-exact rather than merely close.
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/cast_convert.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

bool is_dequantized_type(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16;
}

bool is_division_precision(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16 ||
         t == DataType::Float64;
}

// The zero point's values: empty when absent; one value or one per scale value otherwise.
std::vector<double> read_zero_point(const OpContext& ctx, const Tensor& scale, const char* what) {
  if (!ctx.has_input(2)) return {};
  const Tensor& zp = ctx.input(2);
  if (zp.element_count() != 1 && zp.shape() != scale.shape()) {
    ctx.fail(std::string(what) + " of shape " + zp.shape().to_string() +
             " must be a single value or have the scale's shape " + scale.shape().to_string());
  }
  return values_as_double(zp);
}

void check_numeric_input(const OpContext& ctx, const Tensor& t, const char* what) {
  const bool ok = visit_dtype(
      t.dtype(), [&]<class T>() { return is_float_like_v<T> || std::is_same_v<T, int32_t>; });
  if (!ok) ctx.fail(std::string(what) + " has the unsupported type " + type_name(t.dtype()));
}

// --- QuantizeLinear ---------------------------------------------------------------------------

// The output type (the definition's rule), once the zero point agrees with output_dtype.
DataType quantize_output_type(const OpContext& ctx, const QuantAttrs& at) {
  std::optional<DataType> zero_point;
  if (ctx.has_input(2)) {
    zero_point = ctx.input(2).dtype();
    if (at.output_dtype != DataType::Undefined && *zero_point != at.output_dtype) {
      ctx.fail("y_zero_point is " + type_name(*zero_point) + " but output_dtype is " +
               type_name(at.output_dtype));
    }
  }
  const DataType t = kiln::quantize_output_type(at.output_dtype, zero_point);
  IntRange r;
  if (!quantized_int_range(t, r) && !is_quantized_float_type(t)) {
    ctx.fail("cannot quantize to " + type_name(t));
  }
  return t;
}

CpuKernel make_quantize_linear(const NodeInfo& info) {
  const QuantAttrs at = parse_quant_attrs(info, true);
  return [at](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    check_numeric_input(ctx, x, "x");
    check_numeric_input(ctx, scale, "y_scale");
    const DataType out_type = quantize_output_type(ctx, at);
    const QuantParamLayout layout =
        quant_param_layout(ctx, x.shape(), scale, at.axis, at.block_size, "y_scale");
    const std::vector<double> zero_point = read_zero_point(ctx, scale, "y_zero_point");
    const bool scalar_zp = zero_point.size() == 1;

    // The division runs in `precision`, by default the scale's own type: both operands and
    // the quotient are rounded to it.
    DataType precision = at.precision;
    if (precision == DataType::Undefined) {
      precision = is_division_precision(scale.dtype()) ? scale.dtype() : DataType::Float32;
    }
    std::vector<double> scales = values_as_double(scale);
    for (double& s : scales) s = round_to_precision(s, precision);

    IntRange range;
    const bool to_int = quantized_int_range(out_type, range);
    if (!to_int && out_type != DataType::Float4E2M1) {
      // ONNX defines float8 quantization without an offset: the zero point must be 0.
      for (double z : zero_point) {
        if (z != 0.0) ctx.fail("the zero point of a float8 quantization must be 0");
      }
    }
    Tensor& y = ctx.allocate_output(0, out_type, x.shape());
    if (x.element_count() == 0) return;

    visit_dtype(x.dtype(), [&]<class X>() {
      if constexpr (is_float_like_v<X> || std::is_same_v<X, int32_t>) {
        const X* px = x.data<X>();
        visit_dtype(out_type, [&]<class Q>() {
          if constexpr (is_small_int_v<Q> || is_small_float_v<Q> || is_plain_int_v<Q>) {
            Q* py = y.mutable_data<Q>();
            for_each_quantized(layout, [&](int64_t i, int64_t p) {
              const double xv = round_to_precision(to_double(px[i]), precision);
              const double q = round_to_precision(xv / scales[p], precision);
              const double z = zero_point.empty() ? 0.0 : zero_point[scalar_zp ? 0 : p];
              if constexpr (is_small_float_v<Q>) {
                // float4 adds its zero point as a float (so -0 + 0 gives +0, as in ONNX).
                const double v = std::is_same_v<Q, Float4E2M1> ? q + z : q;
                py[i] = cpu::convert_element<Q>(v, at.saturate);
              } else {
                // Rounded before the zero point is added: with an odd zero point a tie would
                // otherwise round the other way.
                py[i] = int_to_element<Q>(rint_clamped(std::nearbyint(q) + z, range.lo, range.hi));
              }
            });
          }
        });
      }
    });
  };
}

// --- DequantizeLinear -------------------------------------------------------------------------

bool is_dequantizable(DataType t) {
  IntRange r;
  return quantized_int_range(t, r) || is_quantized_float_type(t) || t == DataType::Int32;
}

CpuKernel make_dequantize_linear(const NodeInfo& info) {
  const QuantAttrs at = parse_quant_attrs(info, false);
  return [at](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    if (!is_dequantizable(x.dtype())) ctx.fail("cannot dequantize " + type_name(x.dtype()));
    check_numeric_input(ctx, scale, "x_scale");
    if (ctx.has_input(2) && ctx.input(2).dtype() != x.dtype()) {
      ctx.fail("x_zero_point is " + type_name(ctx.input(2).dtype()) + " but x is " +
               type_name(x.dtype()));
    }
    const DataType out_type =
        at.output_dtype == DataType::Undefined ? scale.dtype() : at.output_dtype;
    if (!is_dequantized_type(out_type)) {
      ctx.fail("the output type " + type_name(out_type) +
               " (the scale's unless output_dtype says otherwise) is not float32, float16 or "
               "bfloat16");
    }
    const QuantParamLayout layout =
        quant_param_layout(ctx, x.shape(), scale, at.axis, at.block_size, "x_scale");
    std::vector<double> zero_point = read_zero_point(ctx, scale, "x_zero_point");
    const bool is_float8 = is_quantized_float_type(x.dtype()) && x.dtype() != DataType::Float4E2M1;
    if (is_float8) {
      for (double z : zero_point) {
        if (z != 0.0) ctx.fail("the zero point of a float8 quantization must be 0");
      }
      zero_point.clear();  // subtracting +0 would still turn -0 into +0
    }
    const bool scalar_zp = zero_point.size() == 1;
    std::vector<float> scales;
    for (double s : values_as_double(scale)) scales.push_back(static_cast<float>(s));

    Tensor& y = ctx.allocate_output(0, out_type, x.shape());
    if (x.element_count() == 0) return;
    visit_dtype(x.dtype(), [&]<class X>() {
      if constexpr (is_small_int_v<X> || is_small_float_v<X> || is_plain_int_v<X>) {
        const X* px = x.data<X>();
        visit_dtype(out_type, [&]<class F>() {
          if constexpr (std::is_same_v<F, float> || std::is_same_v<F, Float16> ||
                        std::is_same_v<F, BFloat16>) {
            F* py = y.mutable_data<F>();
            // As ONNX's reference: the difference as float32, times the scale in float32,
            // then rounded once to the output type.
            for_each_quantized(layout, [&](int64_t i, int64_t p) {
              double d = to_double(px[i]);
              if (!zero_point.empty()) d -= zero_point[scalar_zp ? 0 : p];
              const float v = static_cast<float>(d) * scales[p];
              py[i] = cpu::convert_element<F>(v, true);
            });
          }
        });
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(quantize_linear);
void register_quantize_linear_ops(OpRegistry& registry) {
  registry.add("QuantizeLinear", make_quantize_linear);
  registry.add("DequantizeLinear", make_dequantize_linear);
}

}  // namespace kiln
