#include "opdefs/quantize_linear.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "kiln/float_types.h"
#include "opdefs/node_info.h"

namespace kiln {

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

namespace {

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

bool is_division_precision(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16 ||
         t == DataType::Float64;
}

bool is_dequantized_type(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16;
}

// A dtype attribute (output_dtype, precision): Undefined when absent or 0.
DataType dtype_attr(const NodeInfo& info, const char* name) {
  const int64_t code = info.attr_int(name, 0);
  if (code == 0) return DataType::Undefined;
  if (code < 0 || code > INT32_MAX || !is_valid_dtype(static_cast<int32_t>(code))) {
    info.fail(std::string(name) + " " + std::to_string(code) + " is not an ONNX element type");
  }
  return static_cast<DataType>(code);
}

}  // namespace

QuantAttrs parse_quant_attrs(const NodeInfo& info, bool quantize) {
  QuantAttrs a;
  a.axis = info.attr_int("axis", 1);
  a.block_size = info.attr_int("block_size", 0);
  if (a.block_size < 0) info.fail("block_size must be >= 0, not " + std::to_string(a.block_size));
  a.saturate = info.attr_int("saturate", 1) != 0;
  a.output_dtype = dtype_attr(info, "output_dtype");
  if (quantize) {
    IntRange r;
    if (a.output_dtype != DataType::Undefined && !quantized_int_range(a.output_dtype, r) &&
        !is_quantized_float_type(a.output_dtype)) {
      info.fail("output_dtype " + type_name(a.output_dtype) + " is not a quantized type");
    }
    a.precision = dtype_attr(info, "precision");
    if (a.precision != DataType::Undefined && !is_division_precision(a.precision)) {
      info.fail("precision " + type_name(a.precision) + " is not a float type");
    }
  } else if (a.output_dtype != DataType::Undefined && !is_dequantized_type(a.output_dtype)) {
    info.fail("output_dtype " + type_name(a.output_dtype) + " is not float32, float16 or bfloat16");
  }
  return a;
}

std::optional<QuantParamLayout> quant_param_layout(const Shape& x, const Shape& param, int64_t axis,
                                                   int64_t block_size, const char* what,
                                                   std::string& error) {
  QuantParamLayout l;
  l.outer = x.element_count();  // per-tensor: one pass over every element
  if (param.element_count() == 1) return l;
  const auto rank = static_cast<int64_t>(x.size());
  if (rank == 0) {
    error = std::string(what) + " of shape " + param.to_string() +
            " has more than one value for a scalar input";
    return std::nullopt;
  }
  if (axis < -rank || axis >= rank) {
    error = "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
    return std::nullopt;
  }
  const int64_t ax = axis < 0 ? axis + rank : axis;
  l.outer = 1;
  for (int64_t d = 0; d < ax; ++d) l.outer *= x[d];
  l.extent = x[ax];
  l.inner = 1;
  for (int64_t d = ax + 1; d < rank; ++d) l.inner *= x[d];

  if (block_size <= 0) {
    if (param.size() != 1 || param[0] != l.extent) {
      error = std::string(what) + " of shape " + param.to_string() +
              " is neither a single value nor one value per index of axis " + std::to_string(ax) +
              " of the input " + x.to_string();
      return std::nullopt;
    }
    l.axis_stride = 1;
    return l;
  }
  // Blocked: x's shape, with ceil(extent / block_size) along the axis.
  const int64_t blocks = l.extent == 0 ? 0 : (l.extent - 1) / block_size + 1;
  bool fits = param.size() == static_cast<size_t>(rank);
  for (int64_t d = 0; fits && d < rank; ++d) fits = param[d] == (d == ax ? blocks : x[d]);
  if (!fits) {
    error = std::string(what) + " of shape " + param.to_string() + " does not fit blocks of " +
            std::to_string(block_size) + " along axis " + std::to_string(ax) + " of the input " +
            x.to_string();
    return std::nullopt;
  }
  l.block = block_size;
  l.inner_stride = 1;
  l.axis_stride = l.inner;
  l.outer_stride = blocks * l.inner;
  return l;
}

namespace {

// v as a float rounded to odd (truncated, the last bit set when inexact): rounding that once
// more to a narrower type gives the nearest value of that type to v, as one rounding would.
float round_to_odd_float(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

}  // namespace

double round_to_precision(double v, DataType t) {
  switch (t) {
    case DataType::Float32:
      return static_cast<float>(v);
    case DataType::Float16:
      return static_cast<float>(Float16(round_to_odd_float(v)));
    case DataType::BFloat16:
      return static_cast<float>(BFloat16(round_to_odd_float(v)));
    default:
      return v;
  }
}

}  // namespace kiln
