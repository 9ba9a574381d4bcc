#version 450
// ConvInteger and QLinearConv: int8/uint8 images and weights less their zero points, convolved
// exactly in int32 (wrapping, as the CPU's int32 accumulation), padding reading as the zero
// point (0 once it is subtracted); QLinearConv adds the int32 bias and requantizes
// (requantize.glsl) to four 8-bit outputs per invocation, ConvInteger writes one int32 per
// invocation. Spatial axes are (z, y, x), lower ranks padded in front with size-1 axes, as in
// conv_params.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { uint w[]; };
// The weights' zero points (one, or one per output channel), then from mult_start the
// multipliers as (mantissa, shift) pairs (one, or one per output channel).
layout(std430, set = 0, binding = 2) readonly buffer P { int params[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { int bias[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Y { uint y[]; };

const uint X_SIGNED = 1u, W_SIGNED = 2u, W_ZERO_PER_CHANNEL = 4u, REQUANTIZE = 8u,
           HAS_BIAS = 16u, MULTIPLIER_PER_CHANNEL = 32u;

// Must match IntConvPushConstants in conv_integer.cpp (128 bytes).
layout(push_constant) uniform Params {
  uint in_[3];
  uint out_[3];
  uint kernel[3];
  uint stride[3];
  uint dilation[3];
  int pad[3];  // begin pads
  uint cg;     // x channels per group
  uint mg;     // y channels per group
  uint channels;  // y channels (groups * mg)
  uint count;     // y elements
  uint flags;
  int x_zero;
  uint mult_start;
  int y_zero, lo, hi;
} p;

#include "requantize.glsl"

int sum(uint e) {
  const uint out_size = p.out_[0] * p.out_[1] * p.out_[2];
  const uint pixel = e % out_size, m = (e / out_size) % p.channels;
  const uint b = e / (out_size * p.channels);
  const uint ox = pixel % p.out_[2], oy = (pixel / p.out_[2]) % p.out_[1];
  const uint oz = pixel / (p.out_[2] * p.out_[1]);
  const uint g = m / p.mg;
  const uint in_size = p.in_[0] * p.in_[1] * p.in_[2];
  const uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  const int zw = params[(p.flags & W_ZERO_PER_CHANNEL) != 0u ? m : 0u];
  const bool x_signed = (p.flags & X_SIGNED) != 0u, w_signed = (p.flags & W_SIGNED) != 0u;
  // Summed as uint: each product fits int32 but long sums wrap, which unsigned arithmetic
  // defines (the CPU wraps the same way).
  uint acc = (p.flags & HAS_BIAS) != 0u ? uint(bias[m]) : 0u;
  for (uint c = 0u; c < p.cg; ++c) {
    const uint x_base = (b * p.cg * (p.channels / p.mg) + g * p.cg + c) * in_size;
    uint wi = (m * p.cg + c) * taps;
    for (uint kz = 0u; kz < p.kernel[0]; ++kz) {
      const int iz = int(oz * p.stride[0] + kz * p.dilation[0]) - p.pad[0];
      for (uint ky = 0u; ky < p.kernel[1]; ++ky) {
        const int iy = int(oy * p.stride[1] + ky * p.dilation[1]) - p.pad[1];
        for (uint kx = 0u; kx < p.kernel[2]; ++kx, ++wi) {
          const int ix = int(ox * p.stride[2] + kx * p.dilation[2]) - p.pad[2];
          if (iz < 0 || iz >= int(p.in_[0]) || iy < 0 || iy >= int(p.in_[1]) || ix < 0 ||
              ix >= int(p.in_[2]))
            continue;
          const uint xi = x_base + (uint(iz) * p.in_[1] + uint(iy)) * p.in_[2] + uint(ix);
          acc += uint((byte_of(x[xi >> 2], xi, x_signed) - p.x_zero) *
                      (byte_of(w[wi >> 2], wi, w_signed) - zw));
        }
      }
    }
  }
  return int(acc);
}

int requantized(uint e) {
  const uint out_size = p.out_[0] * p.out_[1] * p.out_[2];
  const uint m = (e / out_size) % p.channels;
  const uint mult = p.mult_start + 2u * ((p.flags & MULTIPLIER_PER_CHANNEL) != 0u ? m : 0u);
  return requantize(sum(e), params[mult], params[mult + 1u], p.y_zero, p.lo, p.hi);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint word = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if ((p.flags & REQUANTIZE) == 0u) {
    if (word < p.count) y[word] = uint(sum(word));
    return;
  }
  const uint first = word * 4u;
  if (first >= p.count) return;
  uint packed = 0u;
  for (uint t = 0u; t < 4u && first + t < p.count; ++t)
    packed |= (uint(requantized(first + t)) & 0xFFu) << (8u * t);
  y[word] = packed;
}
