// Element-wise dtype conversions on texture tensors: Cast between the dtypes textures hold
// (texel_dtype.h), and Not. Every input value is a float (float32, or a float16, integer or bool
// value held exactly); the shader writes the value the target dtype has, as the CPU's Cast
// (backends/cpu/cast_convert.h) gives it:
//   - to float32: the value itself;
//   - to float16: rounded to half precision, to nearest even, overflowing to +-inf, NaN kept
//     (bit for bit the CPU's float_to_half, in integer arithmetic: GLSL leaves packHalf2x16's
//     rounding to the implementation);
//   - to bool: 0 for +-0, 1 for everything else (NaN included);
//   - to int8/uint8/int16/uint16: truncated towards zero through int32 and wrapped to the low
//     bits; NaN and values outside int32 give int32's "integer indefinite" INT32_MIN, whose low
//     bits are 0.
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

enum class ConvertOp { ToFloat32, ToFloat16, ToBool, ToInt8, ToUInt8, ToInt16, ToUInt16, Not };

// The conversion to `dtype`; nullopt for a dtype textures do not hold.
std::optional<ConvertOp> convert_to(DataType dtype);

class Convert {
 public:
  explicit Convert(Context& context) : context_(context) {}

  // Draws y = op(x). Nothing for empty tensors. kiln::Error when x and y differ in element count.
  void record(ConvertOp op, const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
