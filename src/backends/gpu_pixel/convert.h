// Element-wise dtype conversions on texture tensors: Cast between the dtypes textures hold
// (texel_dtype.h), and Not. Every input value is a float (float32, or a float16, integer or bool
// value held exactly); the shader writes the value the target dtype has, as the CPU's Cast
// (backends/cpu/cast_convert.h) gives it:
//   - to float32: the value itself;
//   - to bfloat16: the top 16 bits rounded to nearest even, a NaN made quiet;
//   - to float16: rounded to half precision, to nearest even, overflowing to +-inf, NaN made quiet
//     (bit for bit the CPU's float_to_half, in integer arithmetic: GLSL leaves packHalf2x16's
//     rounding to the implementation);
//   - to float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ): rounded to nearest even on the exact value,
//     and beyond the largest finite value (infinity included) the largest finite value with
//     `saturate`, else infinity (E5M2) or NaN, as float_types.cpp's table says;
//   - to bool: 0 for +-0, 1 for everything else (NaN and subnormals included);
//   - to int8/uint8/int16/uint16: truncated towards zero through int32 and wrapped to the low
//     bits; NaN and values outside int32 give int32's "integer indefinite" INT32_MIN, whose low
//     bits are 0;
//   - to int4/uint4/int2/uint2: the CPU truncates through int64 and keeps the low bits. Below
//     2^31 that is the int32 truncation; above, every float is a multiple of 256 and NaN and
//     values outside int64 give INT64_MIN, all with low bits 0: the same shader serves.
// Not maps bool 0/1 to 1/0.
//
//   Convert kernel(context);
//   kernel.record(ConvertOp::ToInt8, x, y);
#pragma once

#include <optional>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/dtype.h"

namespace kiln::gpu_pixel {

enum class ConvertOp {
  ToFloat32,
  ToFloat16,
  ToBFloat16,
  ToFloat8E4M3FN,
  ToFloat8E4M3FNUZ,
  ToFloat8E5M2,
  ToFloat8E5M2FNUZ,
  ToBool,
  ToInt8,
  ToUInt8,
  ToInt16,
  ToUInt16,
  ToInt4,
  ToUInt4,
  ToInt2,
  ToUInt2,
  Not,
};

// The conversion to `dtype`; nullopt for a dtype textures do not hold.
std::optional<ConvertOp> convert_to(DataType dtype);

class Convert {
 public:
  explicit Convert(Context& context) : context_(context) {}

  // Draws y = op(x); `saturate` is Cast's attribute, which only the float8 targets read.
  // Nothing for empty tensors. kiln::Error when x and y differ in element count.
  void record(ConvertOp op, const TextureTensor& x, TextureTensor& y, bool saturate = true) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
