#version 450
// MaxUnpool of 4- or 8-byte elements, in two passes so that duplicate indices keep the CPU's
// result (the last input element naming a position wins) whatever order invocations run in:
//   CLAIM, one invocation per input element i: its target position gets atomicMax(winner, i)
//     (winner starts at -1). Indices outside the unpooled shape are skipped: device-held indices
//     are not checked on the host (host-held ones are, and the CPU kernel reports them).
//   WRITE, one invocation per output element: the winning input element's words, or zero.
// An index is flat over the unpooled shape; an output_shape larger than it holds the unpooled
// shape in its leading corner, so the index is re-spread over the output's strides.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) readonly buffer I { uint idx[]; };  // int64: low, high
layout(std430, set = 0, binding = 2) buffer Winner { int winner[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { uint y[]; };

const uint CLAIM = 0, WRITE = 1;
const uint kMaxRank = 6;

// Must match MaxUnpoolPushConstants in max_unpool.cpp.
layout(push_constant) uniform Params {
  uint mode;
  uint count;     // CLAIM: input elements; WRITE: output elements
  uint total;     // the unpooled shape's elements
  uint words;     // 32-bit words per element
  uint rank;      // 0: the output is the unpooled shape
  uint unpooled[kMaxRank];
  uint out_stride[kMaxRank];
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  if (p.mode == CLAIM) {
    const uint lo = idx[2 * e], hi = idx[2 * e + 1];
    if (hi != 0u || lo >= p.total) return;
    uint target = lo;
    if (p.rank > 0u) {
      uint rest = lo;
      target = 0u;
      for (uint d = p.rank; d-- > 0u;) {
        target += (rest % p.unpooled[d]) * p.out_stride[d];
        rest /= p.unpooled[d];
      }
    }
    atomicMax(winner[target], int(e));
    return;
  }
  const int w = winner[e];
  for (uint k = 0; k < p.words; ++k) y[e * p.words + k] = w >= 0 ? x[uint(w) * p.words + k] : 0u;
}
