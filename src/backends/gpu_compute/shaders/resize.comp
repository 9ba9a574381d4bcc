#version 450
// Resize of float32 tensors (up to 6-D) from per-axis tap tables that the host computes with the
// CPU kernel's own code (compute_axis_taps), so every mode, coordinate transformation,
// nearest rounding, cubic coefficient, exclude_outside and antialias setting matches the CPU.
// Output coordinate o of axis d uses taps [0, count) of its row in axis d's table; an output
// element is the weighted sum over the product of its per-axis taps, summed in the CPU's order
// (the last axis innermost). A tap index of -1 marks a coordinate outside tf_crop_and_resize's
// region: the element takes the extrapolation value.
//
// Table of axis d, at word table_offset[d]: out_shape[d] tap counts, then out_shape[d] rows of
// max_taps[d] (index, weight) word pairs (the weight as float bits).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { float src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float dst[]; };

// Must match ResizePushConstants in resize.h.
layout(push_constant) uniform Params {
  uint rank;  // 1..6
  uint count; // output elements
  float fill; // extrapolation_value
  uint nearest; // 1: one tap of weight 1 per axis; copy the element (keeps -0.0 and NaN bits)
  uint out_shape[6];
  uint in_stride[6];
  uint table_offset[6];
  uint max_taps[6];
} p;

uint row_start(uint d, uint o) {
  return p.table_offset[d] + p.out_shape[d] + o * p.max_taps[d] * 2;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  const uint rank = p.rank;
  uint coord[6], taps[6], cursor[6];
  uint rest = i;
  for (int d = int(rank) - 1; d >= 0; --d) {
    coord[d] = rest % p.out_shape[d];
    rest /= p.out_shape[d];
    taps[d] = table[p.table_offset[d] + coord[d]];
    cursor[d] = 0;
    if (int(table[row_start(d, coord[d])]) < 0) {
      dst[i] = p.fill;
      return;
    }
  }

  if (p.nearest != 0) {
    uint offset = 0;
    for (uint d = 0; d < rank; ++d) offset += table[row_start(d, coord[d])] * p.in_stride[d];
    dst[i] = src[offset];
    return;
  }

  // Odometer over the taps of the outer axes; the last axis is summed innermost.
  const uint last = rank - 1;
  const uint inner = row_start(last, coord[last]);
  float sum = 0.0;
  while (true) {
    float weight = 1.0;
    uint offset = 0;
    for (uint d = 0; d < last; ++d) {
      const uint e = row_start(d, coord[d]) + cursor[d] * 2;
      offset += uint(int(table[e])) * p.in_stride[d];
      weight *= uintBitsToFloat(table[e + 1]);
    }
    float part = 0.0;
    for (uint t = 0; t < taps[last]; ++t) {
      part += uintBitsToFloat(table[inner + 2 * t + 1]) * src[offset + table[inner + 2 * t]];
    }
    sum += weight * part;
    int d = int(last) - 1;
    for (; d >= 0; --d) {
      if (++cursor[d] < taps[d]) break;
      cursor[d] = 0;
    }
    if (d < 0) break;
  }
  dst[i] = sum;
}
