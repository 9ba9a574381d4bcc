#version 450
// QuantizeLinear and DequantizeLinear between float32 and integer types held in 8 or 16 bits per
// element (int8, uint8, int16, uint16, and the 4- and 2-bit types, which kiln's tensors hold a
// sign-extended byte each), packed into 32-bit words low bits first, with float32 scales and
// per-tensor, per-axis or blocked parameters (opdefs/quantize_linear.h's QuantParamLayout); and
// between float32 and the float8 types (a byte per element, no zero point: ONNX requires it to be
// 0, which the adapter checks), decoded and encoded as Cast does (narrow_float.glsl).
//
//   DEQUANTIZE: an invocation per element: y = float(x - zero_point) * scale, exact in float32
//     as the CPU computes it (float8: y = float(x) * scale).
//   QUANTIZE: an invocation per 32-bit output word (32 / bits elements):
//     q = clamp(round_half_even(x / scale) + zero_point), NaN giving the range's low end. The
//     division is corrected to the correctly rounded quotient (the CPU's), which Vulkan's
//     division does not promise. Float8: q = the quotient rounded to the format, saturating
//     when `saturate` is set.

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
  uint float8;     // the float8 type's ONNX code (narrow_float.glsl's format_of); 0: integers
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
      const uint code = bitfieldExtract(x[g / 4], int(g % 4) * 8, 8);
      y[g] = floatBitsToUint(uintBitsToFloat(decode_narrow(code, format_of(p.float8))) * scale[pi]);
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
      v = int(encode_narrow(floatBitsToUint(q), format_of(p.float8), p.saturate != 0));
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
