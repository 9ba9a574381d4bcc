#version 450
// LRN (local response normalization across channels) of a float32 (N, C, spatial) tensor, one
// invocation per element: the squares of the channels [c - before, c + after] at the same
// position are summed, and y = x * (bias + alpha / size * sum)^-beta, the power as
// exp(-beta log(...)) from shader_math.glsl (the built-in pow is loosely specified).

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match LrnPushConstants in local_norm.cpp.
layout(push_constant) uniform Params {
  uint count;     // elements
  uint channels;  // C
  uint spatial;   // the product of the dimensions after C
  uint before, after;
  float scale;  // alpha / size
  float beta, bias;
} p;

#include "float_bits.glsl"
#include "shader_math.glsl"

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint s = i % p.spatial;
  const uint c = (i / p.spatial) % p.channels;
  const uint plane0 = i - s - c * p.spatial;  // element (n, 0, 0)
  const uint lo = c >= p.before ? c - p.before : 0u;
  const uint hi = min(p.channels - 1u, c + p.after);
  float sum = 0.0;
  for (uint cc = lo; cc <= hi; ++cc) {
    const float v = x[plane0 + cc * p.spatial + s];
    sum += v * v;
  }
  y[i] = x[i] * exp_(-p.beta * log_(p.bias + p.scale * sum));
}
