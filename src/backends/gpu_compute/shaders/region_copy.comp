#version 450
// One strided region copy of 32-bit words: for every index (i_0..i_{rank-1}) of `shape`,
//   out[(out_offset + sum_k i_k out_stride_k) * words + w]
//       = in[(in_offset + sum_k i_k in_stride_k) * words + w]   for w < words.
// Strides count elements and may be 0 (broadcast) or negative (reversed), so one pipeline serves
// Transpose, Slice, Expand and Concat. Each invocation copies one element with no shared memory
// and no barriers, the kind of kernel CPU-emulated devices run fast.
//
// `words` 0 copies 16-bit elements (float16, bfloat16, int16), two to a word. Neighbouring
// elements may belong to different invocations (or to another input's copy of a Concat), so the
// element goes into its half of the word with two atomics that touch only that half: no write
// races, and no 16-bit storage feature needed.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint dst[]; };

// Must match RegionPushConstants in region_copy.h.
layout(push_constant) uniform Params {
  uint count;  // elements of the region
  uint rank;   // <= 8
  uint words;  // 32-bit words per element: 1 (float32, int32), 2 (int64), 0 (16-bit)
  int in_offset;
  int out_offset;
  uint shape[8];
  int in_stride[8];
  int out_stride[8];
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  // Partial sums stay between the region's smallest and largest index (the range of each term
  // includes 0), which the host checked against the buffers: nothing overflows on the way.
  uint rest = i;
  int s = p.in_offset, d = p.out_offset;
  for (int k = int(p.rank) - 1; k >= 0; --k) {
    const int coord = int(rest % p.shape[k]);
    rest /= p.shape[k];
    s += coord * p.in_stride[k];
    d += coord * p.out_stride[k];
  }
  const uint words = p.words;
  if (words == 0u) {
    const uint value = (src[uint(s) >> 1] >> ((uint(s) & 1u) * 16u)) & 0xffffu;
    const uint shift = (uint(d) & 1u) * 16u;
    atomicAnd(dst[uint(d) >> 1], ~(0xffffu << shift));
    atomicOr(dst[uint(d) >> 1], value << shift);
    return;
  }
  for (uint w = 0; w < words; ++w) dst[uint(d) * words + w] = src[uint(s) * words + w];
}
