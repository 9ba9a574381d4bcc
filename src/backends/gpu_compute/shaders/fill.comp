#version 450
// Tensors computed from their element index alone:
// - constant (ConstantOfShape, zeroed outputs): word i gets pattern[i % period]. A 4-byte
//   element is a period of 1, an 8-byte one 2, and a bool byte is replicated into a whole word
//   (buffers span whole words, so the last word may be written past the tensor's bytes);
// - diagonal (EyeLike): a [rows, cols] matrix of 4- or 8-byte elements, the pattern where
//   column - row == k and zero elsewhere;
// - cosine window (HannWindow, HammingWindow, BlackmanWindow): float32
//   a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), the phases reduced exactly in integers and the
//   cosines from shader_math.glsl (the built-in cos is specified to 2^-11 only);
// - range (Range): start + i * delta for element i, float32 (computed in float32, unfused, as the
//   CPU kernel does), int32 and int64 (wrapping as it does; int64 in 32-bit halves with carries),
//   or float16 / bfloat16 (computed in float32 and rounded to nearest even, two elements a word).

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { uint dst[]; };

// Must match FillPushConstants in fill.h.
layout(push_constant) uniform Params {
  uint words;   // words to write
  uint period;  // words per element: 1 or 2
  uint pattern[2];
  uint mode;    // CONSTANT, DIAGONAL, COSINE_WINDOW
  uint cols;    // diagonal: the matrix's columns
  int k;        // diagonal: the one whose elements have column - row == k
  uint n;       // cosine window: N (0: every element is 1)
  float a0, a1, a2;
  uint element; // range: RANGE_F32, RANGE_I32, RANGE_F16, RANGE_BF16, RANGE_I64; start in
                // pattern, delta in step (their bits: int32 or int64, float32 for the float types)
  uint step[2];
} p;

const uint CONSTANT = 0, DIAGONAL = 1, COSINE_WINDOW = 2, RANGE = 3;
const uint RANGE_F32 = 0, RANGE_I32 = 1, RANGE_F16 = 2, RANGE_BF16 = 3, RANGE_I64 = 4;

#include "float_bits.glsl"
#include "half_bits.glsl"
#include "shader_math.glsl"

// cos(2 pi m / N) for 0 <= m < N, by the nearer half of the period so the phase stays within pi.
float cos_fraction(uint m) {
  const uint folded = min(m, p.n - m);
  return sin_cos(6.28318531 * (float(folded) / float(p.n)), true);
}

// Element e of a float range, as float32 bits; `precise` keeps the product and the sum apart.
uint range_bits(uint e) {
  precise float v = uintBitsToFloat(p.pattern[0]) + float(e) * uintBitsToFloat(p.step[0]);
  return floatBitsToUint(v);
}

// Word `upper` (0: low, 1: high) of the int64 start + e * delta, modulo 2^64.
uint range_i64_word(uint e, uint upper) {
  uint lo = 0u, hi = 0u;
  umulExtended(e, p.step[0], hi, lo);
  hi += e * p.step[1];
  uint carry = 0u;
  lo = uaddCarry(lo, p.pattern[0], carry);
  hi += p.pattern[1] + carry;
  return upper == 0u ? lo : hi;
}

uint range_word(uint i) {
  if (p.element == RANGE_I32) return uint(int(p.pattern[0]) + int(i) * int(p.step[0]));
  if (p.element == RANGE_I64) return range_i64_word(i / 2u, i % 2u);
  if (p.element == RANGE_F32) return range_bits(i);
  if (p.element == RANGE_F16)
    return f32_bits_to_f16(range_bits(2u * i)) | (f32_bits_to_f16(range_bits(2u * i + 1u)) << 16);
  return f32_bits_to_bf16(range_bits(2u * i)) | (f32_bits_to_bf16(range_bits(2u * i + 1u)) << 16);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.words) return;
  if (p.mode == DIAGONAL) {
    const uint e = i / p.period;
    const bool on = int(e % p.cols) - int(e / p.cols) == p.k;
    dst[i] = on ? p.pattern[i % p.period] : 0u;
  } else if (p.mode == RANGE) {
    dst[i] = range_word(i);
  } else if (p.mode == COSINE_WINDOW) {
    if (p.n == 0u) {
      dst[i] = floatBitsToUint(1.0);
      return;
    }
    const uint m = i % p.n;
    const uint twice = m >= p.n - m ? m - (p.n - m) : 2u * m;  // 2m mod N without overflow
    const float w = p.a0 - p.a1 * cos_fraction(m) + p.a2 * cos_fraction(twice);
    dst[i] = floatBitsToUint(w);
  } else {
    dst[i] = p.pattern[i % p.period];
  }
}
