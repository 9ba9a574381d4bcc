#version 450
// ScatterElements (and Scatter) and ScatterND as gathers: an invocation per output element
// starts from data's element and applies, in the CPU's order, every update that lands on it, so
// duplicate indices and order-dependent reductions (float add and mul) give the CPU's result.
//
//   ELEMENTS: output coordinate c takes the updates at c with c_axis replaced by j, for each j
//     along the indices' axis whose index equals c_axis.
//   ND: output element o = (prefix position, e) over data viewed as [prefix, slice] takes
//     updates[u, e] for each index tuple u that addresses its prefix position.
//
// Elements are 1 word (float32, int32) or 2 (int64, reduction none only), indices int32 (1
// word) or int64 (2). An index outside its axis matches nothing: the host checks indices it holds
// (so that the CPU kernel reports them); indices computed on the device are never read back.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Data { uint data[]; };
layout(std430, set = 0, binding = 1) readonly buffer Indices { uint idx[]; };
layout(std430, set = 0, binding = 2) readonly buffer Updates { uint upd[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint dst[]; };

// Must match ScatterPushConstants in scatter.cpp; reduction is kiln::ScatterReduction.
layout(push_constant) uniform Params {
  uint count;        // output elements
  uint nd;           // 0: ELEMENTS, 1: ND
  uint type;         // 0: float32, 1: int32, 2: int64
  uint reduction;
  uint index_words;  // 1: int32, 2: int64
  uint rank;         // data's rank (<= 6)
  uint axis;         // ELEMENTS: the axis; ND: k, the tuple length
  uint tuples;       // ND: index tuples
  uint slice;        // ND: elements per tuple's slice
  uint shape[6];     // data's shape
  uint ishape[6];    // ELEMENTS: the indices' (= updates') shape
} p;
const uint NONE = 0, ADD = 1, MUL = 2, MAX = 3, MIN = 4;
const uint FLOAT32 = 0, INT32 = 1;

// Index number k wrapped into [0, dim), or -1 when outside [-dim, dim).
int index_at(uint k, uint dim) {
  int v;
  if (p.index_words == 1) {
    v = int(idx[k]);
  } else {
    const uint lo = idx[2 * k];
    const int hi = int(idx[2 * k + 1]);
    const bool fits = (hi == 0 && lo < 0x80000000u) || (hi == -1 && lo >= 0x80000000u);
    if (!fits) return -1;
    v = int(lo);
  }
  if (v < 0) v += int(dim);
  return v >= 0 && v < int(dim) ? v : -1;
}

uint combine(uint a, uint b) {
  if (p.reduction == NONE) return b;
  if (p.type == FLOAT32) {
    const float x = uintBitsToFloat(a), y = uintBitsToFloat(b);
    if (p.reduction == ADD) return floatBitsToUint(x + y);
    if (p.reduction == MUL) return floatBitsToUint(x * y);
    // A NaN update wins, as numpy's maximum and minimum keep NaN.
    if (p.reduction == MAX) return isnan(y) || y > x ? b : a;
    return isnan(y) || y < x ? b : a;
  }
  // int32: add and mul wrap around.
  if (p.reduction == ADD) return a + b;
  if (p.reduction == MUL) return a * b;
  if (p.reduction == MAX) return int(b) > int(a) ? b : a;
  return int(b) < int(a) ? b : a;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint o = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (o >= p.count) return;
  const uint words = p.type == 2 ? 2 : 1;
  uint v0 = data[o * words], v1 = words == 2 ? data[o * words + 1] : 0u;

  if (p.nd == 0) {
    uint coord[6];
    uint rest = o;
    bool covered = true;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
      coord[d] = rest % p.shape[d];
      rest /= p.shape[d];
      if (uint(d) != p.axis && coord[d] >= p.ishape[d]) covered = false;
    }
    if (covered) {
      // The update at coord with the axis coordinate 0, and the step along the axis.
      uint base = 0, stride = 1, axis_stride = 1;
      for (int d = int(p.rank) - 1; d >= 0; --d) {
        if (uint(d) == p.axis) {
          axis_stride = stride;
        } else {
          base += coord[d] * stride;
        }
        stride *= p.ishape[d];
      }
      const uint dim = p.shape[p.axis];
      for (uint j = 0; j < p.ishape[p.axis]; ++j) {
        const uint u = base + j * axis_stride;
        if (index_at(u, dim) != int(coord[p.axis])) continue;
        if (words == 2) {
          v0 = upd[2 * u];
          v1 = upd[2 * u + 1];
        } else {
          v0 = combine(v0, upd[u]);
        }
      }
    }
  } else {
    const uint k = p.axis;
    const uint position = o / p.slice, e = o % p.slice;
    for (uint u = 0; u < p.tuples; ++u) {
      uint at = 0;
      bool valid = true;
      for (uint j = 0; j < k; ++j) {
        const int i = index_at(u * k + j, p.shape[j]);
        if (i < 0) valid = false;
        at = at * p.shape[j] + uint(max(i, 0));
      }
      if (!valid || at != position) continue;
      const uint s = u * p.slice + e;
      if (words == 2) {
        v0 = upd[2 * s];
        v1 = upd[2 * s + 1];
      } else {
        v0 = combine(v0, upd[s]);
      }
    }
  }
  dst[o * words] = v0;
  if (words == 2) dst[o * words + 1] = v1;
}
