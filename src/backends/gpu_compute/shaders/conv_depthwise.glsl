// The body of conv_depthwise*.comp, which define ROW_KW and ROW_S first: 0, 0 for any kernel,
// or the kernel width and stride along x of a specialized variant (with no dilation along x).
// CPU implementations run both sides of a branch, so each variant is its own pipeline.
//
// Conv with one input channel per group (depthwise, any channel multiplier): there is nothing
// to block over channels, so each invocation computes TP neighbouring output pixels along x of
// one output channel, the tap's weight loaded once for all of them. For the common kernel
// widths (3 and 5, stride 1 or 2, no dilation along x) the input row segment under the TP
// outputs is loaded once for all the row's taps.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };
// A residual of Y's shape, added before the activation (kiln::FusedConv's Z) when has_residual.
layout(std430, set = 0, binding = 4) readonly buffer Residual { float residual[]; };

#include "conv_params.glsl"
#include "activation.glsl"

const uint TP = 8;

#if ROW_KW > 0
// Adds the taps of one input row (starting at `row`, tap index `t`): the TP outputs read a
// window of (TP - 1) * ROW_S + ROW_KW inputs, loaded once, with padding as zeros.
void add_row(uint row, int bx0, uint t, inout float acc[TP]) {
  float win[(TP - 1) * ROW_S + ROW_KW];
  [[unroll]] for (uint q = 0; q < (TP - 1) * ROW_S + ROW_KW; ++q) {
    const int ix = bx0 + int(q);
    const bool ok = ix >= 0 && ix < int(p.in_[2]);
    win[q] = ok ? x[row + uint(ok ? ix : 0)] : 0.0;
  }
  [[unroll]] for (uint kx = 0; kx < ROW_KW; ++kx) {
    const float wv = w[t + kx];
    [[unroll]] for (uint j = 0; j < TP; ++j) acc[j] = fma(wv, win[j * ROW_S + kx], acc[j]);
  }
}
#endif

void main() {
  const uint tiles_x = (p.out_[2] + TP - 1) / TP;
  const uint pixel_tiles = p.out_[0] * p.out_[1] * tiles_x;
  const uint channels = p.groups * p.mg;
  const uint tile =
      gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
  if (tile >= pixel_tiles * channels) return;
  const uint pt = tile % pixel_tiles, oc = tile / pixel_tiles;
  const uint ox0 = (pt % tiles_x) * TP;
  const uint oy = (pt / tiles_x) % p.out_[1], oz = pt / (tiles_x * p.out_[1]);
  const uint b = gl_WorkGroupID.z;
  const uint g = oc / p.mg;  // the one input channel

  const uint in_size = p.in_[0] * p.in_[1] * p.in_[2];
  const uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  const uint x_base = (b * p.groups + g) * in_size;
  const int bz = int(oz * p.stride[0]) - p.pad[0];
  const int by = int(oy * p.stride[1]) - p.pad[1];
  int bx[TP];
  [[unroll]] for (uint j = 0; j < TP; ++j) bx[j] = int((ox0 + j) * p.stride[2]) - p.pad[2];

  float acc[TP];
  [[unroll]] for (uint j = 0; j < TP; ++j) acc[j] = 0.0;
  uint t = oc * taps;
  for (uint kz = 0; kz < p.kernel[0]; ++kz) {
    const int iz = bz + int(kz * p.dilation[0]);
    for (uint ky = 0; ky < p.kernel[1]; ++ky, t += p.kernel[2]) {
      const int iy = by + int(ky * p.dilation[1]);
      if (iz < 0 || iz >= int(p.in_[0]) || iy < 0 || iy >= int(p.in_[1])) continue;
      const uint row = x_base + (uint(iz) * p.in_[1] + uint(iy)) * p.in_[2];
#if ROW_KW > 0
      add_row(row, bx[0], t, acc);
#else
      for (uint kx = 0; kx < p.kernel[2]; ++kx) {
        const float wv = w[t + kx];
        [[unroll]] for (uint j = 0; j < TP; ++j) {
          const int ix = bx[j] + int(kx * p.dilation[2]);
          const bool ok = ix >= 0 && ix < int(p.in_[2]);
          acc[j] = fma(wv, ok ? x[ok ? row + uint(ix) : 0] : 0.0, acc[j]);
        }
      }
#endif
    }
  }

  const uint out_size = p.out_[0] * p.out_[1] * p.out_[2];
  const float bv = p.has_bias != 0 ? bias[oc] : 0.0;
  const uint y_row = (b * channels + oc) * out_size + (oz * p.out_[1] + oy) * p.out_[2] + ox0;
  [[unroll]] for (uint j = 0; j < TP; ++j) {
    if (ox0 + j >= p.out_[2]) break;
    float v = acc[j] + bv;
    if (p.has_residual != 0) v += residual[y_row + j];
    y[y_row + j] = activate(v, p.activation, p.act_min, p.act_max);
  }
}
