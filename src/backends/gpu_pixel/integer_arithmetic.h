// Integer arithmetic and bit ops with numpy broadcasting, as the CPU kernels compute them: Add,
// Sub, Mul (wrapping, two's complement), Div (truncating; the minimum over -1 wraps), Mod (the
// divisor's sign) and FMod (the dividend's), Pow to an exponent of the base's dtype (wrapping
// repeated squaring; a negative exponent gives what Cast makes of the real power), Max, Min,
// BitwiseAnd/Or/Xor/Not and BitShift (shifts past the width give 0).
//
// The dtypes are those textures hold exactly: int32 (RGBA32I), uint32 (RGBA32UI), int64 (two
// words in RGBA32I; texel_dtype.h), and int8, uint8, int16 and uint16, whose values the float
// textures hold. Every dtype computes on 64-bit two's complement values made of two 32-bit words
// (GLSL ES 3.00 has no 64-bit integers, nor uaddCarry or umulExtended: carries are written out),
// then wraps to its own width, which gives what the CPU's arithmetic in the dtype gives. A zero
// divisor gives 0 here: the caller checks divisors on the host, as the CPU kernel reports them.
//
//   IntegerArithmetic kernel(context);
//   kernel.record(IntegerOp::Div, DataType::Int64, a, a_shape, b, b_shape, c);
#pragma once

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

enum class IntegerOp {
  Add,
  Sub,
  Mul,
  Div,
  Mod,   // ONNX Mod with fmod=0: the remainder takes the divisor's sign
  FMod,  // fmod=1: the dividend's (C's %)
  Pow,
  Max,
  Min,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,  // unary: reads a only (pass it as b too)
  BitShiftLeft,
  BitShiftRight,
};
const char* to_string(IntegerOp op);

// Whether the kernel computes on `dtype`: int8, uint8, int16, uint16, int32, uint32, int64.
bool integer_arithmetic_dtype(DataType dtype);

class IntegerArithmetic {
 public:
  explicit IntegerArithmetic(Context& context) : context_(context) {}

  // Draws c = a <op> b, all of `dtype`. Nothing for an empty output. kiln::Error for a dtype the
  // kernel does not take, shapes that do not broadcast, textures not in the format `dtype` lives
  // in or holding fewer words than their shapes need, or c not sized for the broadcast shape.
  void record(IntegerOp op, DataType dtype, const TextureTensor& a, const Shape& a_shape,
              const TextureTensor& b, const Shape& b_shape, TextureTensor& c) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
