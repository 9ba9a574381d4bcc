// The body of conv*.comp, which define ROW_KW and ROW_S first: 0, 0 for any kernel, or the
// kernel width and stride along x of a specialized variant (no dilation along x) that loads the
// input row segment under the TP outputs once per channel for all the row's taps. CPU
// implementations run both sides of a branch, so each variant is its own pipeline.
//
// Conv as an implicit GEMM, per image and group: Y_g [mg, pixels] = W_g [mg, cg * taps] x the
// (never materialized) im2col matrix of X_g. Each invocation computes TM output channels x TP
// neighbouring output pixels along x in registers with no shared memory or barriers (see
// matmul.comp). In the general form taps are the outer loop, so the bounds checks of a tap are
// paid once for all cg channels; padding reads as zero.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };
// A residual of Y's shape, added before the activation (kiln::FusedConv's Z) when has_residual.
layout(std430, set = 0, binding = 4) readonly buffer Residual { float residual[]; };

#include "conv_params.glsl"
#include "activation.glsl"

const uint TM = 8, TP = 8;

void main() {
  const uint tiles_x = (p.out_[2] + TP - 1) / TP;
  const uint pixel_tiles = p.out_[0] * p.out_[1] * tiles_x;
  const uint tiles = pixel_tiles * ((p.mg + TM - 1) / TM);
  // Neighbouring invocations take neighbouring pixels of the same channels: same weights.
  const uint tile =
      gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
  if (tile >= tiles) return;
  const uint pt = tile % pixel_tiles, m0 = (tile / pixel_tiles) * TM;
  const uint ox0 = (pt % tiles_x) * TP;
  const uint oy = (pt / tiles_x) % p.out_[1], oz = pt / (tiles_x * p.out_[1]);
  const uint image_group = gl_WorkGroupID.z;  // b * groups + g
  const uint g = image_group % p.groups;

  const uint in_size = p.in_[0] * p.in_[1] * p.in_[2];
  const uint taps = p.kernel[0] * p.kernel[1] * p.kernel[2];
  const uint x_base = image_group * p.cg * in_size;
  uint w_row[TM];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    w_row[i] = (g * p.mg + min(m0 + i, p.mg - 1)) * p.cg * taps;
  }
  const int bz = int(oz * p.stride[0]) - p.pad[0];
  const int by = int(oy * p.stride[1]) - p.pad[1];
  int bx[TP];
  [[unroll]] for (uint j = 0; j < TP; ++j) bx[j] = int((ox0 + j) * p.stride[2]) - p.pad[2];

  float acc[TM][TP];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TP; ++j) acc[i][j] = 0.0;
  }
  uint t = 0;
  for (uint kz = 0; kz < p.kernel[0]; ++kz) {
    const int iz = bz + int(kz * p.dilation[0]);
    for (uint ky = 0; ky < p.kernel[1]; ++ky, t += p.kernel[2]) {
      const int iy = by + int(ky * p.dilation[1]);
      if (iz < 0 || iz >= int(p.in_[0]) || iy < 0 || iy >= int(p.in_[1])) continue;
      const uint row = (uint(iz) * p.in_[1] + uint(iy)) * p.in_[2];
#if ROW_KW > 0
      uint xo = x_base + row, wo = t;
      for (uint c = 0; c < p.cg; ++c) {
        float win[(TP - 1) * ROW_S + ROW_KW];
        [[unroll]] for (uint q = 0; q < (TP - 1) * ROW_S + ROW_KW; ++q) {
          const int ix = bx[0] + int(q);
          const bool ok = ix >= 0 && ix < int(p.in_[2]);
          win[q] = ok ? x[xo + uint(ok ? ix : 0)] : 0.0;
        }
        [[unroll]] for (uint kx = 0; kx < ROW_KW; ++kx) {
          float wv[TM];
          [[unroll]] for (uint i = 0; i < TM; ++i) wv[i] = w[w_row[i] + wo + kx];
          [[unroll]] for (uint i = 0; i < TM; ++i) {
            [[unroll]] for (uint j = 0; j < TP; ++j) {
              acc[i][j] = fma(wv[i], win[j * ROW_S + kx], acc[i][j]);
            }
          }
        }
        xo += in_size;
        wo += taps;
      }
#else
      for (uint kx = 0; kx < p.kernel[2]; ++kx) {
        bool ok[TP];
        uint off[TP];
        [[unroll]] for (uint j = 0; j < TP; ++j) {
          const int ix = bx[j] + int(kx * p.dilation[2]);
          ok[j] = ix >= 0 && ix < int(p.in_[2]);
          off[j] = ok[j] ? x_base + row + uint(ix) : 0;
        }
        uint wo = t + kx;
        for (uint c = 0; c < p.cg; ++c) {
          float xv[TP], wv[TM];
          [[unroll]] for (uint j = 0; j < TP; ++j) xv[j] = ok[j] ? x[off[j]] : 0.0;
          [[unroll]] for (uint i = 0; i < TM; ++i) wv[i] = w[w_row[i] + wo];
          [[unroll]] for (uint i = 0; i < TM; ++i) {
            [[unroll]] for (uint j = 0; j < TP; ++j) acc[i][j] = fma(wv[i], xv[j], acc[i][j]);
          }
          [[unroll]] for (uint j = 0; j < TP; ++j) off[j] += in_size;
          wo += taps;
        }
      }
#endif
    }
  }

  const uint out_size = p.out_[0] * p.out_[1] * p.out_[2];
  const uint pixel = (oz * p.out_[1] + oy) * p.out_[2] + ox0;
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.mg) break;
    const float b = p.has_bias != 0 ? bias[g * p.mg + m] : 0.0;
    const uint y_row = (image_group * p.mg + m) * out_size + pixel;
    [[unroll]] for (uint j = 0; j < TP; ++j) {
      if (ox0 + j >= p.out_[2]) break;
      float v = acc[i][j] + b;
      if (p.has_residual != 0) v += residual[y_row + j];
      y[y_row + j] = activate(v, p.activation, p.act_min, p.act_max);
    }
  }
}
