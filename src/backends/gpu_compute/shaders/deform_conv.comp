#version 450
// DeformConv of float32 (N, C, H, W) maps, one invocation per output element (n, oc, oh, ow):
// for each input channel of the output channel's group and each kernel tap, X is read
// bilinearly at the tap's position displaced by its offset (zero outside the image), scaled by
// the mask when there is one, and multiplied into the sum with the tap's weight, in the CPU
// kernel's order (channel by channel, taps row-major), starting from the bias.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) readonly buffer Offset { float off[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mask { float mask[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { float y[]; };

// Must match DeformConvPushConstants in deform_conv.cpp.
layout(push_constant) uniform Params {
  uint count;
  uint in_c, in_h, in_w;
  uint out_c, out_h, out_w;
  uint k_h, k_w;
  int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  uint in_per_group, out_per_group, in_per_offset_group, offset_group;
  uint has_bias, has_mask;
} p;

// X at (yy, xx) of the plane starting at `plane`, bilinearly, zero outside the image.
float sample_at(uint plane, float yy, float xx) {
  const float h = float(p.in_h), wd = float(p.in_w);
  if (!(yy > -1.0 && yy < h && xx > -1.0 && xx < wd)) return 0.0;  // also NaN
  const float y0f = floor(yy), x0f = floor(xx);
  const int y0 = int(y0f), x0 = int(x0f);
  const float ly = yy - y0f, lx = xx - x0f;
  float v = 0.0;
  for (int dy = 0; dy < 2; ++dy) {
    const int yi = y0 + dy;
    if (yi < 0 || yi >= int(p.in_h)) continue;
    const float wy = dy != 0 ? ly : 1.0 - ly;
    for (int dx = 0; dx < 2; ++dx) {
      const int xi = x0 + dx;
      if (xi < 0 || xi >= int(p.in_w)) continue;
      v += wy * (dx != 0 ? lx : 1.0 - lx) * x[plane + uint(yi) * p.in_w + uint(xi)];
    }
  }
  return v;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint plane_out = p.out_h * p.out_w;
  const uint pos = e % plane_out;
  const uint oc = (e / plane_out) % p.out_c;
  const uint n = e / (plane_out * p.out_c);
  const int oh = int(pos / p.out_w), ow = int(pos % p.out_w);
  const uint taps = p.k_h * p.k_w;
  const uint group = oc / p.out_per_group;
  const uint off_base = n * p.offset_group * 2u * taps * plane_out + pos;
  const uint mask_base = n * p.offset_group * taps * plane_out + pos;
  float acc = p.has_bias != 0 ? bias[oc] : 0.0;
  for (uint ci = 0; ci < p.in_per_group; ++ci) {
    const uint c = group * p.in_per_group + ci;
    const uint og = c / p.in_per_offset_group;
    const uint plane = (n * p.in_c + c) * p.in_h * p.in_w;
    for (uint k = 0; k < taps; ++k) {
      const int i = int(k / p.k_w), j = int(k % p.k_w);
      const float dy = off[off_base + ((og * taps + k) * 2u) * plane_out];
      const float dx = off[off_base + ((og * taps + k) * 2u + 1u) * plane_out];
      const float yy = float(oh * p.stride_h - p.pad_h + i * p.dil_h) + dy;
      const float xx = float(ow * p.stride_w - p.pad_w + j * p.dil_w) + dx;
      float v = sample_at(plane, yy, xx);
      if (p.has_mask != 0) v *= mask[mask_base + (og * taps + k) * plane_out];
      acc += w[(oc * p.in_per_group + ci) * taps + k] * v;
    }
  }
  y[e] = acc;
}
