#version 450
// QuantizeLinear and DequantizeLinear between float32 and integer types held in 8 or 16 bits per
// element (int8, uint8, int16, uint16, and the 4- and 2-bit types, which kiln's tensors hold a
// sign-extended byte each), packed into 32-bit words low bits first, with float32 scales and
// per-tensor, per-axis or blocked parameters (opdefs/quantize_linear.h's QuantParamLayout); and
// between float32 and the narrow float types, a byte per element, decoded and encoded as Cast
// does (narrow_float.glsl): the float8 types with no zero point (ONNX requires it to be 0, which
// the adapter checks), float4e2m1 with one added or subtracted as a float, as the CPU does.
//
//   DEQUANTIZE: an invocation per element: y = float(x - zero_point) * scale, exact in float32
//     as the CPU computes it (float8: y = float(x) * scale; float4: (float(x) - float(zp)) *
//     scale, the difference exact).
//   QUANTIZE: an invocation per 32-bit output word (32 / bits elements):
//     q = clamp(round_half_even(x / scale) + zero_point), NaN giving the range's low end. The
//     division is corrected to the correctly rounded quotient (the CPU's), which Vulkan's
//     division does not promise. Float8: q = the quotient rounded to the format, saturating
//     when `saturate` is set. Float4: q + float(zero_point) (+0 without one, which turns -0
//     into +0 as the CPU's sum does), rounded once to the format: the sum is rounded to odd in
//     float32 first, which then rounds to float4 as the exact sum does.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 2) readonly buffer ZeroPoint { uint zp[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { uint y[]; };

// Must match QuantizePushConstants in quantize_linear.cpp.
layout(push_constant) uniform Params {
  uint quantize;   // 0: DequantizeLinear, 1: QuantizeLinear
  uint count;      // elements
  uint bits;       // per element: 8 or 16
  uint is_signed;
  uint has_zero_point;
  int lo, hi;      // the integer type's range (int4: [-8, 7], ...)
  uint extent, inner, block;
  uint outer_stride, axis_stride, inner_stride;
  uint float8;     // the narrow float type's ONNX code (narrow_float.glsl's format_of), a
                   // float8 type or float4e2m1 (23); 0: integers
  uint saturate;   // float8 overflow saturates
} p;

// Integer element i of a packed buffer: buffer 0 (x) or 2 (the zero point).
int packed_at(uint i, bool from_zero_point) {
  const uint bit = i * p.bits;
  const uint word = from_zero_point ? zp[bit / 32] : x[bit / 32];
  const uint raw = bitfieldExtract(word, int(bit % 32), int(p.bits));
  if (p.is_signed == 0) return int(raw);
  return bitfieldExtract(int(raw), 0, int(p.bits));  // sign-extends
}

#include "divide_rn.glsl"
#include "narrow_float.glsl"

const uint FLOAT4E2M1 = 23u;

// Byte i of the zero point, a narrow float code.
uint zero_point_code(uint i) { return bitfieldExtract(zp[i / 4], int(i % 4) * 8, 8); }

// The narrow float value of code `code` of format `f`, bits above the format's ignored.
float narrow_value(uint code, Format f) {
  const uint mask = (2u << uint(f.exponent_bits + f.mantissa_bits)) - 1u;
  return uintBitsToFloat(decode_narrow(code & mask, f));
}

// a + b rounded to odd in float32: exact sums as they are, others with the last bit set, so
// that a narrower format's round to nearest even then sees the exact sum's rounding. Two-sum
// gives the rounding error; a zero sum takes IEEE's sign (-0 only from -0 + -0).
float sum_rounded_to_odd(float a, float b) {
  precise float s = a + b;
  if (s == 0.0) {
    const bool both_negative_zero = a == 0.0 && b == 0.0 &&
                                    (floatBitsToUint(a) & floatBitsToUint(b) & 0x80000000u) != 0u;
    return both_negative_zero ? -0.0 : 0.0;
  }
  if (isinf(s) || isnan(s)) return s;
  precise float bb = s - a;
  precise float err = (a - (s - bb)) + (b - bb);
  const uint bits = floatBitsToUint(s);
  if (err == 0.0 || (bits & 1u) != 0u) return s;
  // The exact sum lies between s and its neighbour on err's side, which is odd.
  return uintBitsToFloat((err > 0.0) == (s > 0.0) ? bits + 1u : bits - 1u);
}

uint param_index(uint i) {
  const uint run = i / p.inner, ii = i % p.inner;
  const uint o = run / p.extent, a = run % p.extent;
  return o * p.outer_stride + (a / p.block) * p.axis_stride + ii * p.inner_stride;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint g = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (p.quantize == 0) {
    if (g >= p.count) return;
    const uint pi = param_index(g);
    if (p.float8 != 0) {
      const Format f = format_of(p.float8);
      const uint code = bitfieldExtract(x[g / 4], int(g % 4) * 8, 8);
      precise float v = narrow_value(code, f);
      if (p.has_zero_point != 0) v = v - narrow_value(zero_point_code(pi), f);
      precise float r = v * scale[pi];
      y[g] = floatBitsToUint(r);
      return;
    }
    int v = packed_at(g, false);
    if (p.has_zero_point != 0) v -= packed_at(pi, true);
    y[g] = floatBitsToUint(float(v) * scale[pi]);
    return;
  }
  const uint per_word = 32 / p.bits;
  const uint first = g * per_word;
  if (first >= p.count) return;
  uint word = 0;
  for (uint k = 0; k < per_word; ++k) {
    const uint i = first + k;
    if (i >= p.count) break;
    const uint pi = param_index(i);
    const float q = divide(uintBitsToFloat(x[i]), scale[pi]);
    int v;
    if (p.float8 != 0) {
      const Format f = format_of(p.float8);
      float n = q;
      if (p.float8 == FLOAT4E2M1) {
        const float z = p.has_zero_point != 0 ? narrow_value(zero_point_code(pi), f) : 0.0;
        n = sum_rounded_to_odd(q, z);
      }
      v = int(encode_narrow(floatBitsToUint(n), f, p.saturate != 0));
    } else if (isnan(q)) {
      v = p.lo;
    } else {
      const float z = p.has_zero_point != 0 ? float(packed_at(pi, true)) : 0.0;
      const float r = roundEven(q) + z;
      v = r <= float(p.lo) ? p.lo : r >= float(p.hi) ? p.hi : int(r);
    }
    word = bitfieldInsert(word, uint(v), int(k * p.bits), int(p.bits));
  }
  y[g] = word;
}
