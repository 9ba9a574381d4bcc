#version 450
// RoiAlign of a float32 (N, C, H, W) map, one invocation per output element (roi, c, bin): the
// bin's bilinear samples, planned on the host in double as the CPU kernel plans them (four
// positions in the H x W plane and four weights each), averaged or, in max mode, the largest
// weighted corner of any sample (as the reference defines it), in the CPU kernel's order.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Pos { int pos[]; };      // 4 per sample
layout(std430, set = 0, binding = 2) readonly buffer Weight { float w[]; };   // 4 per sample
layout(std430, set = 0, binding = 3) readonly buffer Regions { uint region[]; };  // 3 per roi
layout(std430, set = 0, binding = 4) writeonly buffer Y { float y[]; };

// Must match RoiAlignPushConstants in roi_align.cpp.
layout(push_constant) uniform Params {
  uint count;     // output elements
  uint channels;  // C
  uint bins;      // output_height * output_width
  uint plane;     // H * W
  uint max_mode;
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint bin = e % p.bins;
  const uint c = (e / p.bins) % p.channels;
  const uint r = e / (p.bins * p.channels);
  // A region: its batch index, its first sample and its samples per bin.
  const uint base = (region[3 * r] * p.channels + c) * p.plane;
  const uint per_bin = region[3 * r + 2];
  const uint first = region[3 * r + 1] + bin * per_bin;
  float acc = 0.0;
  for (uint k = 0; k < per_bin; ++k) {
    const uint s = 4 * (first + k);
    const float v0 = w[s] * x[base + pos[s]];
    const float v1 = w[s + 1] * x[base + pos[s + 1]];
    const float v2 = w[s + 2] * x[base + pos[s + 2]];
    const float v3 = w[s + 3] * x[base + pos[s + 3]];
    if (p.max_mode != 0) {
      const float m = max(max(v0, v1), max(v2, v3));
      acc = k == 0 ? m : max(acc, m);
    } else {
      acc += v0 + v1 + v2 + v3;
    }
  }
  y[e] = p.max_mode != 0 ? acc : acc / float(max(per_bin, 1u));
}
