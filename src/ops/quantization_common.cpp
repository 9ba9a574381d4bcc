#include "ops/quantization_common.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/cpu/cast_convert.h"
#include "ops/index_list.h"

namespace kiln {

QuantParamLayout quant_param_layout(const OpContext& ctx, const Shape& x, const Tensor& param,
                                    int64_t axis, int64_t block_size, const char* what) {
  QuantParamLayout l;
  l.outer = x.element_count();  // per-tensor: one pass over every element
  if (param.element_count() == 1) return l;
  const auto rank = static_cast<int64_t>(x.size());
  if (rank == 0) {
    ctx.fail(std::string(what) + " of shape " + param.shape().to_string() +
             " has more than one value for a scalar input");
  }
  const int64_t ax = checked_axis(ctx, axis, rank, "axis");
  l.outer = 1;
  for (int64_t d = 0; d < ax; ++d) l.outer *= x[d];
  l.extent = x[ax];
  l.inner = 1;
  for (int64_t d = ax + 1; d < rank; ++d) l.inner *= x[d];

  if (block_size <= 0) {
    if (param.rank() != 1 || param.shape()[0] != l.extent) {
      ctx.fail(std::string(what) + " of shape " + param.shape().to_string() +
               " is neither a single value nor one value per index of axis " + std::to_string(ax) +
               " of the input " + x.to_string());
    }
    l.axis_stride = 1;
    return l;
  }
  // Blocked: x's shape, with ceil(extent / block_size) along the axis.
  const int64_t blocks = l.extent == 0 ? 0 : (l.extent - 1) / block_size + 1;
  bool fits = param.rank() == static_cast<size_t>(rank);
  for (int64_t d = 0; fits && d < rank; ++d) {
    fits = param.shape()[d] == (d == ax ? blocks : x[d]);
  }
  if (!fits) {
    ctx.fail(std::string(what) + " of shape " + param.shape().to_string() +
             " does not fit blocks of " + std::to_string(block_size) + " along axis " +
             std::to_string(ax) + " of the input " + x.to_string());
  }
  l.block = block_size;
  l.inner_stride = 1;
  l.axis_stride = l.inner;
  l.outer_stride = blocks * l.inner;
  return l;
}

std::vector<double> values_as_double(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.element_count()));
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_complex_v<T> || std::is_same_v<T, std::string>) {
      throw Error("a " + std::string(dtype_name(t.dtype())) + " tensor has no numeric value");
    } else if constexpr (std::is_same_v<T, bool>) {
      const bool* p = t.data<bool>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = p[i] ? 1.0 : 0.0;
    } else {
      const T* p = t.data<T>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = to_double(p[i]);
    }
  });
  return out;
}

bool quantized_int_range(DataType t, IntRange& range) {
  switch (t) {
    case DataType::UInt8:
      range = {0, 255};
      return true;
    case DataType::Int8:
      range = {-128, 127};
      return true;
    case DataType::UInt16:
      range = {0, 65535};
      return true;
    case DataType::Int16:
      range = {-32768, 32767};
      return true;
    case DataType::UInt4:
      range = {0, 15};
      return true;
    case DataType::Int4:
      range = {-8, 7};
      return true;
    case DataType::UInt2:
      range = {0, 3};
      return true;
    case DataType::Int2:
      range = {-2, 1};
      return true;
    default:
      return false;
  }
}

bool is_quantized_float_type(DataType t) {
  return t == DataType::Float8E4M3FN || t == DataType::Float8E4M3FNUZ ||
         t == DataType::Float8E5M2 || t == DataType::Float8E5M2FNUZ || t == DataType::Float4E2M1;
}

double round_to_precision(double v, DataType t) {
  switch (t) {
    case DataType::Float32:
      return static_cast<float>(v);
    case DataType::Float16:
      return static_cast<float>(cpu::convert_element<Float16>(v, true));
    case DataType::BFloat16:
      return static_cast<float>(cpu::convert_element<BFloat16>(v, true));
    default:
      return v;
  }
}

double scalar_value(const OpContext& ctx, const Tensor& t, const char* what) {
  if (t.element_count() != 1) {
    ctx.fail(std::string(what) + " must hold a single value, got shape " + t.shape().to_string());
  }
  double v = 0;
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_complex_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      ctx.fail(std::string(what) + " has the non-numeric type " +
               std::string(dtype_name(t.dtype())));
    } else {
      v = to_double(t.data<T>()[0]);
    }
  });
  return v;
}

DynamicQuantParams dynamic_quant_params(const float* x, int64_t n) {
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) continue;
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  DynamicQuantParams q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  q.zero_point = std::nearbyint(std::clamp(0.0f - lo / q.scale, 0.0f, 255.0f));
  // Both infinities give inf / inf: a NaN zero point, which converting to uint8 is undefined
  // for. 0, as NaN quantizes elsewhere.
  if (std::isnan(q.zero_point)) q.zero_point = 0.0f;
  return q;
}

void dynamic_quantize_u8(const float* x, int64_t n, const DynamicQuantParams& q, uint8_t* y) {
  parallel_for(n, 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float v = std::nearbyint(x[i] / q.scale) + q.zero_point;
      y[i] = static_cast<uint8_t>(rint_clamped(v, 0, 255));
    }
  });
}

QuantScalar quant_scalar(const OpContext& ctx, size_t scale_index, size_t zero_point_index,
                         DataType element, const char* what) {
  const std::string name(what);
  if (!ctx.has_input(scale_index)) ctx.fail(name + "_scale is required");
  const Tensor& s = ctx.input(scale_index);
  if (s.dtype() != DataType::Float32 || s.element_count() != 1) {
    ctx.fail(name + "_scale must be one float32 value, got " + std::string(dtype_name(s.dtype())) +
             s.shape().to_string());
  }
  QuantScalar q;
  q.scale = s.data<float>()[0];
  if (zero_point_index != kNoInput && ctx.has_input(zero_point_index)) {
    const Tensor& z = ctx.input(zero_point_index);
    if (z.dtype() != element || z.element_count() != 1) {
      ctx.fail(name + "_zero_point must be one " + std::string(dtype_name(element)) +
               " value, got " + std::string(dtype_name(z.dtype())) + z.shape().to_string());
    }
    q.zero_point = element == DataType::Int8 ? z.data<int8_t>()[0] : z.data<uint8_t>()[0];
  }
  return q;
}

void apply_qlinear_table(const uint8_t table[256], const uint8_t* x, uint8_t* y, int64_t n) {
  parallel_for(n, 65536, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) y[i] = table[x[i]];
  });
}

}  // namespace kiln
