#version 450
// One strided region copy of 32-bit words: for every index (i_0..i_{rank-1}) of `shape`,
//   out[(out_offset + sum_k i_k out_stride_k) * words + w]
//       = in[(in_offset + sum_k i_k in_stride_k) * words + w]   for w < words.
// Strides count elements and may be 0 (broadcast) or negative (reversed), so one pipeline serves
// Transpose, Slice, Expand and Concat. Each invocation copies one element with no shared memory
// and no barriers, the kind of kernel CPU-emulated devices run fast.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };

// Must match RegionPushConstants in region_copy.h.
layout(push_constant) uniform Params {
  uint count;  // elements of the region
  uint rank;   // <= 6
  uint words;  // 32-bit words per element: 1 (float32, int32) or 2 (int64)
  int in_offset;
  int out_offset;
  uint shape[6];
  int in_stride[6];
  int out_stride[6];
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
  for (uint w = 0; w < words; ++w) dst[uint(d) * words + w] = src[uint(s) * words + w];
}
