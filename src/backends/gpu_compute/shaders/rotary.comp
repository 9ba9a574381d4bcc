#version 450
// RotaryEmbedding, float32, one invocation per output element: element d < rotary_dim of a head
// is one half of the pair (i, i + rotary_dim / 2), or (2i, 2i + 1) when interleaved, rotated by
// the angle of cache row rows[token]:
//   (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos);
// the features past rotary_dim are copied. x is [batch, heads, seq, head_size], or packed
// [batch, seq, heads * head_size].

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Cos { float cos_cache[]; };
layout(std430, set = 0, binding = 2) readonly buffer Sin { float sin_cache[]; };
// Per token b * seq + s: its row of the caches (checked on the host).
layout(std430, set = 0, binding = 3) readonly buffer Rows { int rows[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Y { float y[]; };

// Must match RotaryPushConstants in rotary.cpp.
layout(push_constant) uniform Params {
  uint count, heads, seq, head_size, half_dim, packed, interleaved, cache_stride;
} p;

void main() {
  const uint e = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint d = e % p.head_size, line = e / p.head_size;
  if (d >= 2 * p.half_dim) {
    y[e] = x[e];
    return;
  }
  // The line's batch and position: lines run [b, h, s] (4-D) or [b, s, h] (packed).
  const uint s = p.packed != 0 ? (line / p.heads) % p.seq : line % p.seq;
  const uint b = line / (p.heads * p.seq);
  const uint row = uint(rows[b * p.seq + s]);
  const bool interleaved = p.interleaved != 0;
  const uint i = interleaved ? d / 2 : d % p.half_dim;
  const bool first = interleaved ? (d % 2) == 0 : d < p.half_dim;
  const uint base = e - d;
  const uint i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + p.half_dim;
  const float x1 = x[base + i1], x2 = x[base + i2];
  const float c = cos_cache[row * p.cache_stride + i], sn = sin_cache[row * p.cache_stride + i];
  y[e] = first ? x1 * c - x2 * sn : x1 * sn + x2 * c;
}
