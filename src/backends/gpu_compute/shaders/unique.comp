#version 450
// Unique: the distinct slices of X ([outer, extent, inner] around the axis; a slice is the
// outer * inner elements at one axis position, compared lexicographically in row-major order), as
// ops/selection.cpp finds them. Exact, without a sort: each slice compares itself with every
// other (the adapter keeps extent * slice size within the loop budget). Elements compare as keys
// that order as the values do: float32 with -0 equal to +0 and every NaN equal to every other and
// after all numbers (numpy.unique's order), int32 and int64 as signed integers.
//
//   stage 0, per slice i: first[i] (the first slice equal to it) and count[i] (how many are).
//   stage 1, per slice i: id[i], its output position (sorted: how many distinct slices are less;
//     else how many distinct slices occur first before first[i]), written as inverse[i]; the
//     number of distinct slices into state[3 * extent] (which the adapter reads back).
//   stage 2, per distinct slice i (first[i] == i): indices[id[i]] = i, counts[id[i]] = count[i].
//   stage 3, per element of Y: Y[o, j, k] = X[o, indices[j], k].
// int64 outputs are written as two words (every value is non-negative).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
// first[extent], count[extent], id[extent], then the distinct count.
layout(std430, set = 0, binding = 1) buffer State { uint state[]; };
layout(std430, set = 0, binding = 2) buffer A { uint a[]; };  // inverse, indices or Y
layout(std430, set = 0, binding = 3) buffer B { uint b[]; };  // counts, or the indices stage 3 reads

// Must match UniquePushConstants in unique.cpp.
layout(push_constant) uniform Params {
  uint stage;
  uint outer, extent, inner;
  uint kind;      // 0 float32, 1 int32, 2 int64
  uint sorted;
  uint distinct;  // stages 2 and 3
  uint y_count;   // stage 3: Y's elements
} p;

// Element e's key word `w` (0: the low word of an int64; 1: its high word, or the only word).
uint key(uint e, uint w) {
  if (p.kind == 2u) {
    const uint v = x[2u * e + (w == 1u ? 1u : 0u)];
    return w == 1u ? v ^ 0x80000000u : v;
  }
  if (w == 0u) return 0u;
  const uint v = x[e];
  if (p.kind == 1u) return v ^ 0x80000000u;
  const uint magnitude = v & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0xffffffffu;  // NaN
  if (magnitude == 0u) return 0x80000000u;           // -0 and +0
  return (v & 0x80000000u) != 0u ? ~v : v | 0x80000000u;
}

// Slice i against slice j: -1, 0 or 1.
int compare_slices(uint i, uint j) {
  const uint size = p.outer * p.inner;
  for (uint t = 0u; t < size; ++t) {
    const uint o = t / p.inner, k = t % p.inner;
    const uint ei = (o * p.extent + i) * p.inner + k, ej = (o * p.extent + j) * p.inner + k;
    const uint hi_i = key(ei, 1u), hi_j = key(ej, 1u);
    if (hi_i != hi_j) return hi_i < hi_j ? -1 : 1;
    const uint lo_i = key(ei, 0u), lo_j = key(ej, 0u);
    if (lo_i != lo_j) return lo_i < lo_j ? -1 : 1;
  }
  return 0;
}

void write_int64(uint index, uint value, bool to_b) {
  if (to_b) {
    b[2u * index] = value;
    b[2u * index + 1u] = 0u;
  } else {
    a[2u * index] = value;
    a[2u * index + 1u] = 0u;
  }
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint g = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  const uint n = p.extent;
  if (p.stage == 0u) {
    if (g >= n) return;
    uint first = g, count = 0u;
    for (uint j = 0u; j < n; ++j) {
      if (compare_slices(g, j) != 0) continue;
      if (j < first) first = j;
      ++count;
    }
    state[g] = first;
    state[n + g] = count;
  } else if (p.stage == 1u) {
    if (g >= n) return;
    const uint first = state[g];
    uint id = 0u, distinct = 0u;
    for (uint j = 0u; j < n; ++j) {
      if (state[j] != j) continue;  // not a first occurrence
      ++distinct;
      if (p.sorted != 0u ? compare_slices(j, g) < 0 : j < first) ++id;
    }
    state[2u * n + g] = id;
    write_int64(g, id, false);
    if (g == 0u) state[3u * n] = distinct;
  } else if (p.stage == 2u) {
    if (g >= n || state[g] != g) return;
    const uint id = state[2u * n + g];
    write_int64(id, g, false);
    write_int64(id, state[n + g], true);
  } else {
    if (g >= p.y_count) return;
    const uint per_outer = p.distinct * p.inner;
    const uint o = g / per_outer, r = g % per_outer;
    const uint j = r / p.inner, k = r % p.inner;
    const uint src = (o * n + b[2u * j]) * p.inner + k;
    if (p.kind == 2u) {
      a[2u * g] = x[2u * src];
      a[2u * g + 1u] = x[2u * src + 1u];
    } else {
      a[g] = x[src];
    }
  }
}
