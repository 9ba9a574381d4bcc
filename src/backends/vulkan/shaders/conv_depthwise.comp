#version 450
// Depthwise 2-D convolution (one input channel per group, any channel multiplier): each
// invocation computes one output element directly from its KH x KW window. Depthwise layers do
// little arithmetic per input element, so the window loop is already memory-bound; tiling as in
// conv2d.comp would waste 3/4 of each register block on a single output channel.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { float y[]; };

// Must match ConvPushConstants in conv.h (cin_g is 1 here).
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
  const uint per_image = p.groups * p.cout_g * pixels;
  const uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                     gl_GlobalInvocationID.x;
  const uint image = gl_GlobalInvocationID.z;
  if (index >= per_image) return;
  const uint channel = index / pixels;  // output channel
  const uint n = index % pixels;
  const uint g = channel / p.cout_g;
  const int oh = int((n / p.OW) * p.sh) - p.ph;
  const int ow = int((n % p.OW) * p.sw) - p.pw;
  const uint x_base = (image * p.groups + g) * p.H * p.W;
  uint k = channel * p.KH * p.KW;
  float acc = 0.0;
  for (uint kh = 0; kh < p.KH; ++kh) {
    const int ih = oh + int(kh * p.dh);
    const bool row_inside = ih >= 0 && ih < int(p.H);
    for (uint kw = 0; kw < p.KW; ++kw, ++k) {
      const int iw = ow + int(kw * p.dw);
      if (row_inside && iw >= 0 && iw < int(p.W)) acc += w[k] * x[x_base + uint(ih) * p.W + uint(iw)];
    }
  }
  float v = acc + (p.has_bias != 0 ? bias[channel] : 0.0);
  if (p.act == 1) v = max(v, 0.0);
  if (p.act == 2) v = min(max(v, p.lo), p.hi);
  y[image * per_image + index] = v;
}
