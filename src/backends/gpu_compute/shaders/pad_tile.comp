#version 450
// Pad (constant, reflect, edge, wrap; negative pads crop) and Tile for 32- and 64-bit elements
// (64-bit ones move as two 32-bit words). Each invocation computes the source of one output
// element axis by axis, as kiln's CPU Pad does: along an axis the output is `before` mapped
// elements, the kept input range (lo .. lo + n - 1, lo folded into in_offset), then mapped
// elements again; outside the kept range the modes reflect, clamp or wrap inside it, or (in
// constant mode) the element is the constant. Tile is wrap with before = 0.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
// The constant when value_in_buffer: its first element (a constant_value computed on the device).
layout(std430, set = 0, binding = 2) readonly buffer Value { uint value[]; };

// Must match PadPushConstants in pad_tile.h.
layout(push_constant) uniform Params {
  uint count;      // output elements
  uint rank;       // <= 6
  uint words;      // 32-bit words per element: 1 or 2
  uint mode;       // CONSTANT, REFLECT, EDGE, WRAP
  uint value_lo;   // constant mode: the value's words
  uint value_hi;
  uint value_in_buffer;  // 1: the constant is value[0 .. words - 1]
  uint in_offset;  // element index of the first kept input element
  uint out_shape[6];
  uint in_stride[6];
  int before[6];
  int kept[6];     // n: kept input elements along the axis (>= 1 unless the mode is constant)
} p;

const uint CONSTANT = 0, REFLECT = 1, EDGE = 2, WRAP = 3;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  uint rest = i, s = p.in_offset;
  bool inside = true;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const int o = int(rest % p.out_shape[d]);
    rest /= p.out_shape[d];
    const int n = p.kept[d];
    int j = o - p.before[d];
    if (j < 0 || j >= n) {
      if (p.mode == CONSTANT) {
        inside = false;
      } else if (p.mode == EDGE) {
        j = clamp(j, 0, n - 1);
      } else if (p.mode == WRAP) {
        j %= n;  // GLSL's % truncates like C's
        if (j < 0) j += n;
      } else if (n == 1) {
        j = 0;
      } else {
        // Repeated reflection: the pattern 0 1 .. n-1 n-2 .. 1 has period 2(n-1).
        const int period = 2 * (n - 1);
        j %= period;
        if (j < 0) j += period;
        if (j >= n) j = period - j;
      }
    }
    s += uint(j) * p.in_stride[d];
  }
  const bool from_buffer = p.value_in_buffer != 0u;
  if (p.words == 1) {
    dst[i] = inside ? src[s] : (from_buffer ? value[0] : p.value_lo);
  } else {
    dst[2 * i] = inside ? src[2 * s] : (from_buffer ? value[0] : p.value_lo);
    dst[2 * i + 1] = inside ? src[2 * s + 1] : (from_buffer ? value[1] : p.value_hi);
  }
}
