#version 450
// ConvTranspose as a gather: each output pixel sums the (input position, tap) pairs that reach
// it, i.e. those with position * stride + tap * dilation - pad == output coordinate on every
// axis. Each invocation computes TM output channels x TP neighbouring output pixels along x;
// which input positions a tap reaches is worked out once per tap for all channels.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

#include "conv_params.glsl"
#include "activation.glsl"

const uint TM = 8, TP = 8;

// The window position along an axis that tap `k` maps onto image coordinate `i`, or -1.
int source(int i, uint k, uint axis) {
  const int num = i + p.pad[axis] - int(k * p.dilation[axis]);
  if (num < 0) return -1;
  const uint q = uint(num) / p.stride[axis];
  return q * p.stride[axis] == uint(num) && q < p.out_[axis] ? int(q) : -1;
}

void main() {
  // Here the output Y spans `in_` (the image) and X spans `out_` (the window positions).
  const uint tiles_x = (p.in_[2] + TP - 1) / TP;
  const uint pixel_tiles = p.in_[0] * p.in_[1] * tiles_x;
  const uint tiles = pixel_tiles * ((p.mg + TM - 1) / TM);
  const uint tile =
      gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
  if (tile >= tiles) return;
  const uint pt = tile % pixel_tiles, m0 = (tile / pixel_tiles) * TM;
  const uint ix0 = (pt % tiles_x) * TP;
  const uint iy = (pt / tiles_x) % p.in_[1], iz = pt / (tiles_x * p.in_[1]);
  const uint image_group = gl_WorkGroupID.z;  // b * groups + g
  const uint g = image_group % p.groups;

  const uint x_size = p.out_[0] * p.out_[1] * p.out_[2];
  const uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  const uint x_base = image_group * p.cg * x_size;
  // W is [groups * cg, mg, taps].
  uint w_row[TM];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    w_row[i] = (g * p.cg * p.mg + min(m0 + i, p.mg - 1)) * taps;
  }
  const uint w_channel_step = p.mg * taps;

  float acc[TM][TP];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TP; ++j) acc[i][j] = 0.0;
  }
  uint t = 0;
  for (uint kz = 0; kz < p.kernel[0]; ++kz) {
    const int sz = source(int(iz), kz, 0);
    for (uint ky = 0; ky < p.kernel[1]; ++ky, t += p.kernel[2]) {
      const int sy = source(int(iy), ky, 1);
      if (sz < 0 || sy < 0) continue;
      const uint row = (uint(sz) * p.out_[1] + uint(sy)) * p.out_[2];
      for (uint kx = 0; kx < p.kernel[2]; ++kx) {
        bool ok[TP];
        uint off[TP];
        bool any = false;
        [[unroll]] for (uint j = 0; j < TP; ++j) {
          const int sx = source(int(ix0 + j), kx, 2);
          ok[j] = sx >= 0 && ix0 + j < p.in_[2];
          off[j] = ok[j] ? x_base + row + uint(sx) : 0;
          any = any || ok[j];
        }
        if (!any) continue;  // with stride s, most taps reach no pixel of a short run
        uint wo = t + kx;
        for (uint c = 0; c < p.cg; ++c) {
          float xv[TP], wv[TM];
          [[unroll]] for (uint j = 0; j < TP; ++j) xv[j] = ok[j] ? x[off[j]] : 0.0;
          [[unroll]] for (uint i = 0; i < TM; ++i) wv[i] = w[w_row[i] + wo];
          [[unroll]] for (uint i = 0; i < TM; ++i) {
            [[unroll]] for (uint j = 0; j < TP; ++j) acc[i][j] = fma(wv[i], xv[j], acc[i][j]);
          }
          [[unroll]] for (uint j = 0; j < TP; ++j) off[j] += x_size;
          wo += w_channel_step;
        }
      }
    }
  }

  const uint y_size = p.in_[0] * p.in_[1] * p.in_[2];
  const uint pixel = (iz * p.in_[1] + iy) * p.in_[2] + ix0;
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.mg) break;
    const float b = p.has_bias != 0 ? bias[g * p.mg + m] : 0.0;
    const uint y_row = (image_group * p.mg + m) * y_size + pixel;
    [[unroll]] for (uint j = 0; j < TP; ++j) {
      if (ix0 + j >= p.in_[2]) break;
      y[y_row + j] = activate(acc[i][j] + b, p.activation, p.act_min, p.act_max);
    }
  }
}
