// Cast from the integer textures (int32, int64 in RGBA32I, uint32 in RGBA32UI; texel_dtype.h) as
// the CPU's Cast does it:
//   - to int32, uint32 and int64: the value wrapped to the target's bits (the low word; an int64
//     gets the source's high word, or its sign extension);
//   - to int8, uint8, int16, uint16: the low bits, wrapped, held in the float texture;
//   - to bool: 0 for 0, else 1;
//   - to float32: rounded to nearest even (bit arithmetic on the words: GLSL leaves the rounding
//     of float(int) to the implementation).
// Casts from floats to these integers stay on the CPU.
//
//   IntegerCast kernel(context);
//   kernel.record(DataType::Int64, DataType::Float32, x, y);
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/dtype.h"

namespace kiln::gpu_pixel {

// Whether IntegerCast takes `from` -> `to`.
bool integer_cast_supported(DataType from, DataType to);

class IntegerCast {
 public:
  explicit IntegerCast(Context& context) : context_(context) {}

  // Draws y = Cast(x) for x of `from` and y of `to`, in the textures those dtypes live in.
  // kiln::Error for a pair integer_cast_supported refuses or textures of other sizes or formats.
  void record(DataType from, DataType to, const TextureTensor& x, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
