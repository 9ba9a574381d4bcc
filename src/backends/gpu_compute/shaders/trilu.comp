#version 450
// Trilu over 32-bit words: each element (1 word for float32/int32, 2 for int64) of the last two
// dimensions [rows, cols] is copied where it lies in the kept triangle and zeroed elsewhere.
// Upper keeps column j >= i + k of row i, lower keeps j <= i + k.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };

// Must match TriluPushConstants in trilu.cpp.
layout(push_constant) uniform Params {
  uint count;  // elements
  uint words;  // 32-bit words per element
  uint rows, cols;
  uint upper;
  int k;  // clamped by the host into [-rows - 1, cols + 1]: beyond that nothing changes
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const int j = int(e % p.cols);
  const int i = int((e / p.cols) % p.rows);
  const bool keep = p.upper != 0 ? j >= i + p.k : j <= i + p.k;
  for (uint w = 0; w < p.words; ++w) dst[e * p.words + w] = keep ? src[e * p.words + w] : 0u;
}
