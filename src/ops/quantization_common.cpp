#include "ops/quantization_common.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ops/index_list.h"

namespace kiln {

QuantParamLayout quant_param_layout(const OpContext& ctx, const Shape& x, const Tensor& param,
                                    int64_t axis, int64_t block_size, const char* what) {
  std::string error;
  const std::optional<QuantParamLayout> l =
      quant_param_layout(x, param.shape(), axis, block_size, what, error);
  if (!l) ctx.fail(error);
  return *l;
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
