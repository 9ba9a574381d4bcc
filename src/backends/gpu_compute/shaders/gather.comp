#version 450
// Gather and GatherElements over 32-bit words: elements of 1 word (float32, int32) or 2 (int64)
// with int32 (1-word) or int64 (2-word) indices. Index values are clamped into their axis
// rather than trusted: indices computed on the device are never validated on the host, and an
// out-of-range one must not read outside the data buffer.
//
//   Gather:         out[o, j, r] = data[o, idx[j], r]  (o < outer, j < n, r < inner)
//   GatherElements: out[c] = data[c with c_axis replaced by idx[c]]  (c over the indices' shape)
//   GatherND:       out[b, t, e] = data[b, idx[b, t, 0..k), e]  (b < batches, t < tuples per
//                   batch, e < slice; the tuple's k components index data's dims after the
//                   batch dims)

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Data { uint src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Indices { uint idx[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint dst[]; };

// Must match GatherPushConstants in gather.h.
layout(push_constant) uniform Params {
  uint count;        // output elements
  uint elements;     // 0: Gather, 1: GatherElements, 2: GatherND
  uint words;        // 32-bit words per data element
  uint index_words;  // 32-bit words per index
  uint dim;          // size of the gathered axis in data (>= 1)
  uint n;            // Gather: number of indices; GatherND: tuples per batch
  uint inner;        // Gather: elements after the axis; GatherND: elements per slice
  uint axis_stride;  // GatherElements: data stride of the axis; GatherND: of a batch
  uint rank;         // GatherElements: <= 8; GatherND: k, the tuple length (<= 8)
  uint axis;         // GatherElements: the axis among the rank dimensions
  uint shape[8];     // GatherElements: the indices' (= output's) shape; GatherND: the data
                     // dims the tuple indexes
  uint stride[8];    // GatherElements: data strides; GatherND: those dims' data strides
} p;

// Index number k, wrapped (negative counts from the end) and clamped into [0, dim).
uint index_at(uint k, uint dim) {
  int v;
  if (p.index_words == 1) {
    v = int(idx[k]);
  } else {
    // An int64 as two little-endian words; values beyond 32 bits are clamped anyway, so no
    // 64-bit arithmetic is needed.
    const uint lo = idx[2 * k];
    const int hi = int(idx[2 * k + 1]);
    if (hi == 0 && lo < 0x80000000u) {
      v = int(lo);
    } else if (hi == -1 && lo >= 0x80000000u) {
      v = int(lo);
    } else {
      v = hi < 0 ? -int(dim) - 1 : int(dim);
    }
  }
  if (v < 0) v += int(dim);
  return uint(clamp(v, 0, int(dim) - 1));
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  uint s;
  if (p.elements == 0) {
    const uint r = i % p.inner;
    const uint q = i / p.inner;
    const uint j = q % p.n;
    const uint o = q / p.n;
    s = (o * p.dim + index_at(j, p.dim)) * p.inner + r;
  } else if (p.elements == 2) {
    const uint e = i % p.inner;
    const uint u = i / p.inner;  // the tuple, over every batch
    s = (u / p.n) * p.axis_stride + e;
    for (uint j = 0; j < p.rank; ++j) s += index_at(u * p.rank + j, p.shape[j]) * p.stride[j];
  } else {
    uint rest = i;
    s = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      const uint coord = rest % p.shape[d];
      rest /= p.shape[d];
      if (uint(d) != p.axis) s += coord * p.stride[d];
    }
    s += index_at(i, p.dim) * p.axis_stride;
  }
  const uint words = p.words;
  for (uint w = 0; w < words; ++w) dst[i * words + w] = src[s * words + w];
}
