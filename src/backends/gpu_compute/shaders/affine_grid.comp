#version 450
// AffineGrid: an invocation per output value, theta row i applied to the homogeneous position
// (x, y[, z], 1) of its grid point. The CPU computes in double from coordinates in double; here
// the host's double coordinates come as three floats each (two 12-bit halves and the rest) and
// the products and sum are kept to about twice float's precision (wide_float.glsl), rounded
// once.
#extension GL_GOOGLE_include_directive : require

#include "wide_float.glsl"

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Theta { float theta[]; };
// The coordinates of each spatial axis in the size's order ((D,) H, W), 3 floats each.
layout(std430, set = 0, binding = 1) readonly buffer C { float coords[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

// Must match AffineGridPushConstants in affine_grid.cpp.
layout(push_constant) uniform Params {
  uint count;       // output values: N * points * spatial
  uint spatial;     // 2 or 3
  uint extent[3];   // spatial sizes in the size's order; unused ones 1
  uint first[3];    // where each axis's coordinates start in coords (in coordinates)
} p;

vec3 coordinate(uint axis, uint i) {
  const uint c = (p.first[axis] + i) * 3u;
  return vec3(coords[c], coords[c + 1u], coords[c + 2u]);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint r = p.spatial;
  const uint i = e % r;
  uint point = e / r;
  // The grid point's index along each spatial axis, the last (W) fastest.
  uint at[3];
  for (uint d = r; d-- > 0u;) {
    at[d] = point % p.extent[d];
    point /= p.extent[d];
  }
  const uint n = point;
  const uint row_start = (n * r + i) * (r + 1u);
  // Position component j is the coordinate along axis r - 1 - j (x is W, the last axis).
  Wide acc = Wide(0.0, 0.0);
  for (uint j = 0u; j < r; ++j) {
    const uint axis = r - 1u - j;
    acc = add(acc, product(Wide(theta[row_start + j], 0.0), coordinate(axis, at[axis])), false);
  }
  acc = add(acc, Wide(theta[row_start + r], 0.0), false);
  precise float v = acc.hi + acc.lo;
  y[e] = v;
}
