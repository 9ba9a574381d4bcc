#version 450
// NonZero: the coordinates of the input's nonzero elements, in row-major order, as int64
// [rank, count]. The count decides the output's shape, so it takes three dispatches around a
// read-back (non_zero.cpp):
//   stage 0: an invocation per chunk of elements counts the chunk's nonzero ones;
//   stage 1: one invocation turns the counts into each chunk's first output column (an
//            exclusive prefix sum), the total after the last;
//   (the host reads the total back and sizes the output)
//   stage 2: an invocation per chunk writes its elements' coordinates from its first column on.
// An element is nonzero when any bit of it but a float's sign is set: -0.0 is zero, NaN is not.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) buffer Counts { uint counts[]; };  // [chunks + 1]
layout(std430, set = 0, binding = 2) writeonly buffer Y { uint y[]; };   // int64 pairs

const uint kMaxRank = 8;

// Must match NonZeroPushConstants in non_zero.cpp.
layout(push_constant) uniform Params {
  uint stage;
  uint count;       // elements
  uint bytes;       // per element: 1, 2, 4 or 8
  uint mask;        // of the element's (top) word bits that count: all but a float's sign
  uint chunk;       // elements per chunk
  uint chunks;
  uint total;       // nonzero elements (stage 2)
  uint rank;        // of the coordinates (a scalar counts as rank 1)
  uint dims[kMaxRank];
} p;

bool nonzero(uint i) {
  if (p.bytes == 8u) return x[2u * i] != 0u || (x[2u * i + 1u] & p.mask) != 0u;
  if (p.bytes == 4u) return (x[i] & p.mask) != 0u;
  if (p.bytes == 2u) return ((x[i >> 1] >> (16u * (i & 1u))) & p.mask) != 0u;
  return ((x[i >> 2] >> (8u * (i & 3u))) & p.mask) != 0u;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint c = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (p.stage == 1u) {
    if (c != 0u) return;
    uint sum = 0u;
    for (uint k = 0u; k < p.chunks; ++k) {
      const uint n = counts[k];
      counts[k] = sum;
      sum += n;
    }
    counts[p.chunks] = sum;
    return;
  }
  if (c >= p.chunks) return;
  const uint begin = c * p.chunk, end = min(p.count, begin + p.chunk);
  if (p.stage == 0u) {
    uint n = 0u;
    for (uint i = begin; i < end; ++i) n += nonzero(i) ? 1u : 0u;
    counts[c] = n;
    return;
  }
  uint column = counts[c];
  for (uint i = begin; i < end; ++i) {
    if (!nonzero(i)) continue;
    uint rest = i;
    for (uint d = p.rank; d-- > 0u;) {
      const uint at = 2u * (d * p.total + column);
      y[at] = rest % p.dims[d];
      y[at + 1u] = 0u;
      rest /= p.dims[d];
    }
    ++column;
  }
}
