#version 450
// 2-D convolution (NCHW, groups, strides, dilations, pads) as an implicit GEMM: per image and
// group, C[co, pixel] = sum over (ci, kh, kw) of W[co, ci, kh, kw] * X[ci, pixel's tap], with the
// input taps gathered on the fly instead of an im2col copy. Register-blocked like matmul.comp:
// each invocation computes 4 output channels x 4 output pixels, without shared memory.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

// Must match ConvPushConstants in conv.h.
layout(push_constant) uniform Params {
  uint cout_g, cin_g, groups;
  uint H, W, OH, OW;
  uint KH, KW;
  uint sh, sw, dh, dw;
  int ph, pw;
  uint has_bias, act;
  float lo, hi;
} p;

void main() {
  const uint pixels = p.OH * p.OW;
  const uint tiles_n = (pixels + 3) / 4;
  const uint tiles = tiles_n * ((p.cout_g + 3) / 4);
  const uint t = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (t >= tiles) return;
  const uint image = gl_GlobalInvocationID.z / p.groups;
  const uint g = gl_GlobalInvocationID.z % p.groups;
  const uint m0 = (t / tiles_n) * 4;
  const uint n0 = (t % tiles_n) * 4;
  const uint K = p.cin_g * p.KH * p.KW;

  // Weight rows of the 4 output channels (past the edge: the last one, never written).
  uint wr[4];
  for (uint i = 0; i < 4; ++i) wr[i] = (g * p.cout_g + min(m0 + i, p.cout_g - 1)) * K;
  // Top-left input position of each output pixel's window.
  ivec2 origin[4];
  for (uint j = 0; j < 4; ++j) {
    const uint n = min(n0 + j, pixels - 1);
    origin[j] = ivec2(int((n / p.OW) * p.sh) - p.ph, int((n % p.OW) * p.sw) - p.pw);
  }
  const uint plane = p.H * p.W;
  uint x_channel = (image * p.groups + g) * p.cin_g * plane;

  vec4 acc[4] = vec4[4](vec4(0), vec4(0), vec4(0), vec4(0));
  uint k = 0;
  for (uint ci = 0; ci < p.cin_g; ++ci, x_channel += plane) {
    for (uint kh = 0; kh < p.KH; ++kh) {
      for (uint kw = 0; kw < p.KW; ++kw, ++k) {
        vec4 xv;
        for (uint j = 0; j < 4; ++j) {
          const int ih = origin[j].x + int(kh * p.dh);
          const int iw = origin[j].y + int(kw * p.dw);
          const bool inside = ih >= 0 && ih < int(p.H) && iw >= 0 && iw < int(p.W);
          xv[j] = inside ? x[x_channel + uint(ih) * p.W + uint(iw)] : 0.0;
        }
        acc[0] += w[wr[0] + k] * xv;
        acc[1] += w[wr[1] + k] * xv;
        acc[2] += w[wr[2] + k] * xv;
        acc[3] += w[wr[3] + k] * xv;
      }
    }
  }

  const uint y_base = (image * p.groups + g) * p.cout_g * pixels;
  for (uint i = 0; i < 4; ++i) {
    const uint m = m0 + i;
    if (m >= p.cout_g) break;
    const float b = p.has_bias != 0 ? bias[g * p.cout_g + m] : 0.0;
    for (uint j = 0; j < 4; ++j) {
      const uint n = n0 + j;
      if (n >= pixels) break;
      float v = acc[i][j] + b;
      if (p.act == 1) v = max(v, 0.0);
      if (p.act == 2) v = min(max(v, p.lo), p.hi);
      y[y_base + m * pixels + n] = v;
    }
  }
}
