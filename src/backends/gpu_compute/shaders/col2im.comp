#version 450
// Col2Im as a gather: an invocation per output pixel adds the column entries of every sliding
// block that covers it, in the CPU's order (block offsets in row-major order). The CPU adds in
// double; the sum here is kept to about twice float's precision (wide_float.glsl) and rounded
// once. Up to 3 spatial axes.
#extension GL_GOOGLE_include_directive : require

#include "wide_float.glsl"

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match Col2ImPushConstants in col2im.cpp.
layout(push_constant) uniform Params {
  uint count;  // output elements: planes * image_size
  uint rank;   // spatial axes, 1..3
  uint block_size, columns, image_size;
  uint image[3], block[3], dilation[3], pad_begin[3], stride[3], positions[3];
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint plane = e / p.image_size;
  uint q[3];
  uint rest = e % p.image_size;
  for (uint d = p.rank; d-- > 0u;) {
    q[d] = rest % p.image[d];
    rest /= p.image[d];
  }
  const uint base = plane * p.block_size * p.columns;
  Wide acc = Wide(0.0, 0.0);
  for (uint k = 0u; k < p.block_size; ++k) {
    // Block offset b (row-major over the block's axes) and the sliding position s it implies.
    uint kr = k, column = 0u, scale = 1u;
    bool covers = true;
    for (uint d = p.rank; d-- > 0u;) {
      const uint b = kr % p.block[d];
      kr /= p.block[d];
      const int t = int(q[d] + p.pad_begin[d]) - int(b * p.dilation[d]);
      if (t < 0 || uint(t) % p.stride[d] != 0u || uint(t) / p.stride[d] >= p.positions[d]) {
        covers = false;
        break;
      }
      column += (uint(t) / p.stride[d]) * scale;
      scale *= p.positions[d];
    }
    if (covers) acc = add(acc, Wide(x[base + k * p.columns + column], 0.0), false);
  }
  precise float sum = acc.hi + acc.lo;
  y[e] = sum;
}
