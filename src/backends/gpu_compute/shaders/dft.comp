#version 450
// DFT and STFT as a direct transform: an invocation per output bin sums the line's n terms
// x[j] * e^(-+2 pi i j k / n). The CPU transforms in double, so the sum is kept in two floats
// (a value and its rounding error) and every product is split exactly (Dekker), with twiddles
// the host computed in double and stored as three floats (two 12-bit halves of the rounded
// value, then the rest). The result is the sum to about twice float's precision, rounded once,
// as the CPU's double result is.
//
// Lines are addressed by strides, so one shader serves both ops: a DFT line is (outer, inner)
// of [outer, length, inner, components], an STFT line is (batch, frame) with frame f starting
// at sample f * frame_step of the signal [batch, length, components].

#extension GL_GOOGLE_include_directive : require

#include "wide_float.glsl"

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float window[]; };
// Per r in [0, n): cos(2 pi r / n) as (high half, low half, rest), then sin likewise.
layout(std430, set = 0, binding = 2) readonly buffer T { float twiddle[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

// Must match DftPushConstants in dft.cpp.
layout(push_constant) uniform Params {
  uint lines, inner;
  uint in_outer_stride, in_inner_stride, in_axis_stride;
  uint in_count;  // elements of a line read: the rest are zeros (padding to n)
  uint in_components;
  uint out_outer_stride, out_inner_stride, out_axis_stride;
  uint out_length, out_components;
  uint n;
  uint inverse;        // e^(+2 pi i j k / n) and a 1/n scale
  uint half_spectrum;  // the line holds bins 0..n/2 of a real signal's spectrum
  uint has_window;
} p;

// Twiddle r: cos and sin as (high half, low half, rest).
void twiddle_of(uint r, out vec3 c, out vec3 s) {
  const uint t = r * 6u;
  c = vec3(twiddle[t], twiddle[t + 1u], twiddle[t + 2u]);
  s = vec3(twiddle[t + 3u], twiddle[t + 4u], twiddle[t + 5u]);
}

// Element j of the line (j < n) as a complex value, zero beyond what the line holds. A half
// spectrum gives bins above n/2 as the conjugates of those below.
vec2 element(uint base, uint j) {
  bool conjugate = false;
  if (p.half_spectrum != 0u && j > p.n / 2u) {
    j = p.n - j;
    conjugate = true;
  }
  if (j >= p.in_count) return vec2(0.0);
  const uint e = base + j * p.in_axis_stride;
  vec2 v = vec2(x[e], p.in_components == 2u ? x[e + 1u] : 0.0);
  if (conjugate) v.y = -v.y;
  return v;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint id = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (id >= p.lines * p.out_length) return;
  const uint line = id / p.out_length, k = id % p.out_length;
  const uint o = line / p.inner, i = line % p.inner;
  const uint in_base = o * p.in_outer_stride + i * p.in_inner_stride;
  const uint out_at = o * p.out_outer_stride + i * p.out_inner_stride + k * p.out_axis_stride;

  // Forward: re += a c + b s, im += b c - a s; inverse: re += a c - b s, im += b c + a s.
  const bool inverse = p.inverse != 0u;
  Wide re = Wide(0.0, 0.0), im = Wide(0.0, 0.0);
  uint r = 0u;  // j * k mod n
  for (uint j = 0u; j < p.n; ++j) {
    const vec2 v = element(in_base, j);
    // The windowed value kept exact, as the CPU's double product is.
    const bool windowed = p.has_window != 0u && j < p.in_count;
    const Wide a = windowed ? mul(v.x, window[j]) : Wide(v.x, 0.0);
    const Wide b = windowed ? mul(v.y, window[j]) : Wide(v.y, 0.0);
    vec3 c, s;
    twiddle_of(r, c, s);
    re = add(re, product(a, c), false);
    re = add(re, product(b, s), inverse);
    if (p.out_components == 2u) {
      im = add(im, product(b, c), false);
      im = add(im, product(a, s), !inverse);
    }
    r += k;
    if (r >= p.n) r -= p.n;
  }
  precise float real = re.hi + re.lo;
  precise float imag = im.hi + im.lo;
  if (inverse) {
    real = real / float(p.n);
    imag = imag / float(p.n);
  }
  y[out_at] = real;
  if (p.out_components == 2u) y[out_at + 1u] = imag;
}
