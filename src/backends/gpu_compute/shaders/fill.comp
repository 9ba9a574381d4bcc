#version 450
// Tensors computed from their element index alone:
// - constant (ConstantOfShape, zeroed outputs): word i gets pattern[i % period]. A 4-byte
//   element is a period of 1, an 8-byte one 2, and a bool byte is replicated into a whole word
//   (buffers span whole words, so the last word may be written past the tensor's bytes);
// - diagonal (EyeLike): a [rows, cols] matrix of 4- or 8-byte elements, the pattern where
//   column - row == k and zero elsewhere;
// - cosine window (HannWindow, HammingWindow, BlackmanWindow): float32
//   a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), the phases reduced exactly in integers and the
//   cosines from shader_math.glsl (the built-in cos is specified to 2^-11 only).

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
} p;

const uint CONSTANT = 0, DIAGONAL = 1, COSINE_WINDOW = 2;

#include "float_bits.glsl"
#include "shader_math.glsl"

// cos(2 pi m / N) for 0 <= m < N, by the nearer half of the period so the phase stays within pi.
float cos_fraction(uint m) {
  const uint folded = min(m, p.n - m);
  return sin_cos(6.28318531 * (float(folded) / float(p.n)), true);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.words) return;
  if (p.mode == DIAGONAL) {
    const uint e = i / p.period;
    const bool on = int(e % p.cols) - int(e / p.cols) == p.k;
    dst[i] = on ? p.pattern[i % p.period] : 0u;
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
