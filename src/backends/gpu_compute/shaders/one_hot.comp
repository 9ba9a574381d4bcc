#version 450
// OneHot: output [outer, depth, inner] from indices [outer, inner]: on where the depth
// coordinate is the element's index (negative ones counting from the end), off elsewhere and
// for indices outside [-depth, depth) or NaN. Indices are float32 (truncated toward zero),
// int32 or int64; values are [off, on] of 1 word (float32, int32) or 2 (int64).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Indices { uint idx[]; };
layout(std430, set = 0, binding = 1) readonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint dst[]; };

// Must match OneHotPushConstants in one_hot.cpp.
layout(push_constant) uniform Params {
  uint count;       // output elements
  uint depth, inner;
  uint index_type;  // 0: float32, 1: int32, 2: int64
  uint words;       // per value
} p;

// Index number k wrapped into [0, depth), or -1 when it is none.
int index_at(uint k) {
  const int depth = int(p.depth);
  int v;
  if (p.index_type == 0) {
    const float f = uintBitsToFloat(idx[k]);
    if (isnan(f)) return -1;
    const float t = trunc(f);
    if (t < -float(depth) || t >= float(depth)) return -1;
    v = int(t);
  } else if (p.index_type == 1) {
    v = int(idx[k]);
  } else {
    const uint lo = idx[2 * k];
    const int hi = int(idx[2 * k + 1]);
    const bool fits = (hi == 0 && lo < 0x80000000u) || (hi == -1 && lo >= 0x80000000u);
    if (!fits) return -1;
    v = int(lo);
  }
  if (v < 0) v += depth;
  return v >= 0 && v < depth ? v : -1;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint i = e % p.inner;
  const uint k = (e / p.inner) % p.depth;
  const uint o = e / (p.inner * p.depth);
  const bool on = index_at(o * p.inner + i) == int(k);
  const uint from = on ? p.words : 0u;
  for (uint w = 0; w < p.words; ++w) dst[e * p.words + w] = values[from + w];
}
