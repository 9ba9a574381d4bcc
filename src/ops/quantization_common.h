// Shared pieces of the quantization family (QuantizeLinear, DequantizeLinear, the QLinear* ops,
// ConvInteger): how a scale or zero-point tensor maps onto the tensor it describes, the ranges
// of the quantized integer types, and rounding helpers that reproduce ONNX's arithmetic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_context.h"
#include "kiln/tensor.h"
#include "opdefs/quantize_linear.h"

namespace kiln {

class OpRegistry;

// The layout of `param` (named `what` in errors) for a tensor of shape `x`: a single value is
// per-tensor whatever the axis; otherwise block_size 0 asks for a 1-D per-axis parameter and a
// positive block_size for a blocked one. ctx.fail for any shape that fits neither.
QuantParamLayout quant_param_layout(const OpContext& ctx, const Shape& x, const Tensor& param,
                                    int64_t axis, int64_t block_size, const char* what);

// Calls body(element_index, param_index) for every element of x, in parallel over runs of
// the axis (each element exactly once; body must only write its own element).
template <class Body>
void for_each_quantized(const QuantParamLayout& l, Body&& body) {
  const int64_t runs = l.outer * l.extent;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, l.inner));
  parallel_for(runs, grain, [&](int64_t begin, int64_t end) {
    for (int64_t run = begin; run < end; ++run) {
      const int64_t o = run / l.extent, a = run % l.extent;
      const int64_t base = o * l.outer_stride + (a / l.block) * l.axis_stride;
      const int64_t first = run * l.inner;
      for (int64_t i = 0; i < l.inner; ++i) body(first + i, base + i * l.inner_stride);
    }
  });
}

// The elements of a numeric tensor as doubles (exact for every type kiln quantizes to).
std::vector<double> values_as_double(const Tensor& t);

// Round half to even (numpy's rint) and clamp into [lo, hi]. NaN gives lo, as ONNX's reference
// (NaN to int32 is INT32_MIN, then clipped) and ONNX Runtime's MLAS kernels do.
inline int64_t rint_clamped(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return lo;
  const double r = std::nearbyint(v);
  if (r <= static_cast<double>(lo)) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}

// Stores an integer already inside T's range into an element of T.
template <class T>
T int_to_element(int64_t v) {
  if constexpr (is_small_int_v<T>) {
    return T(static_cast<int>(v));
  } else {
    return static_cast<T>(v);
  }
}

// The last step of QLinearConv and QLinearMatMul: y[i] = saturate(rint(acc[i] * multiplier(i)
// + zero_point)) into y, an int8 or uint8 tensor of `acc`'s element count.
template <class MultiplierOf>
void requantize(const int32_t* acc, MultiplierOf&& multiplier_of, double zero_point, Tensor& y) {
  IntRange range;
  quantized_int_range(y.dtype(), range);
  auto store = [&]<class T>(T* out) {
    for (int64_t i = 0; i < y.element_count(); ++i) {
      out[i] =
          static_cast<T>(rint_clamped(acc[i] * multiplier_of(i) + zero_point, range.lo, range.hi));
    }
  };
  if (y.dtype() == DataType::Int8) {
    store(y.mutable_data<int8_t>());
  } else {
    store(y.mutable_data<uint8_t>());
  }
}

// The single value of a one-element tensor (a per-tensor scale or zero point) as a double.
double scalar_value(const OpContext& ctx, const Tensor& t, const char* what);

// DynamicQuantizeLinear's uint8 parameters for n floats: scale = (max(0, max x) - min(0, min x))
// / 255 (1 for an all-zero range), zero_point = rint(clamp(-min / scale, 0, 255)), in float32 as
// ONNX's function body and ONNX Runtime compute them. NaN elements take no part in the range.
struct DynamicQuantParams {
  float scale = 1.0f;
  float zero_point = 0.0f;
};
DynamicQuantParams dynamic_quant_params(const float* x, int64_t n);
// y = saturate(rint(x / scale) + zero_point) into uint8, in parallel.
void dynamic_quantize_u8(const float* x, int64_t n, const DynamicQuantParams& q, uint8_t* y);

// A per-tensor (scale, zero point) pair of ONNX Runtime's QLinear contrib ops: a float32 scale
// and an optional zero point of the quantized tensor's type `element`, each one value.
// An absent input position (a zero point an op has no input for).
inline constexpr size_t kNoInput = static_cast<size_t>(-1);

struct QuantScalar {
  float scale = 1.0f;
  int32_t zero_point = 0;
};
// ctx.fail, naming `what` ("x" for x_scale / x_zero_point), for a missing scale, a scale that is
// not one float32, or a zero point of another type or size.
QuantScalar quant_scalar(const OpContext& ctx, size_t scale_index, size_t zero_point_index,
                         DataType element, const char* what);

// The 256-entry table of a QLinear element-wise op on int8 or uint8 (`element`), indexed by the
// input's byte: y = saturate(rint(f(x_scale * (q - x_zero_point)) / y_scale) + y_zero_point),
// in float32 as ONNX Runtime's lookup tables are built. `f` maps 256 floats in place.
template <class F>
void build_qlinear_table(DataType element, const QuantScalar& x, const QuantScalar& y, F&& f,
                         uint8_t table[256]) {
  float values[256];
  const bool is_signed = element == DataType::Int8;
  for (int i = 0; i < 256; ++i) {
    const int q = is_signed ? static_cast<int8_t>(static_cast<uint8_t>(i)) : i;
    values[i] = x.scale * static_cast<float>(q - x.zero_point);
  }
  f(values);
  const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  for (int i = 0; i < 256; ++i) {
    const auto q = static_cast<int>(rint_clamped(
        std::nearbyint(values[i] / y.scale) + static_cast<float>(y.zero_point), lo, hi));
    table[i] = static_cast<uint8_t>(q);  // the byte of the int8 or uint8 value
  }
}

// y[i] = table[byte of x[i]] for n one-byte elements, in parallel.
void apply_qlinear_table(const uint8_t table[256], const uint8_t* x, uint8_t* y, int64_t n);

}  // namespace kiln
