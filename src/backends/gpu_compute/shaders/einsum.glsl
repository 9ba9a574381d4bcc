// Einsum's contraction, included by einsum.comp (T = float) and einsum_f64.comp (T = double):
// an invocation per output element sums, over every combination of the summed labels, the
// product of the operands' elements, in the CPU's order (the last label fastest), moving each
// operand's offset by its stride per label. Repeated labels (diagonals) and broadcast extents
// are in the strides the host resolved (opdefs/einsum.h).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { T b[]; };  // A again for one operand
layout(std430, set = 0, binding = 2) writeonly buffer Y { T y[]; };

// Must match EinsumPushConstants in einsum.cpp.
layout(push_constant) uniform Params {
  uint count;      // output elements
  uint operands;   // 1 or 2
  uint num_out;    // output labels (the first ones)
  uint num_labels;
  uint sum_count;  // combinations of the summed labels
  uint sizes[8];
  uint stride_a[8];
  uint stride_b[8];
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint o = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (o >= p.count) return;
  uint off_a = 0u, off_b = 0u;
  uint rest = o;
  for (uint k = p.num_out; k-- > 0u;) {
    const uint i = rest % p.sizes[k];
    rest /= p.sizes[k];
    off_a += i * p.stride_a[k];
    off_b += i * p.stride_b[k];
  }
  uint index[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
  precise T acc = T(0);
  for (uint s = 0u; s < p.sum_count; ++s) {
    precise T prod = a[off_a];
    if (p.operands == 2u) prod = prod * b[off_b];
    acc = acc + prod;
    for (uint k = p.num_labels; k-- > p.num_out;) {
      off_a += p.stride_a[k];
      off_b += p.stride_b[k];
      if (++index[k] < p.sizes[k]) break;
      off_a -= p.stride_a[k] * p.sizes[k];
      off_b -= p.stride_b[k] * p.sizes[k];
      index[k] = 0u;
    }
  }
  y[o] = acc;
}
