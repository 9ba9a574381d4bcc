#version 450
// QLinearMatMul and MatMulInteger: int8/uint8 operands less their zero points multiplied exactly
// in int32 (wrapping, as ONNX's int32 accumulation), then
//   requantize 1 (QLinearMatMul): y = saturate(round_half_even(acc * multiplier + y_zero_point))
//     (requantize.glsl), an invocation per output word: four 8-bit outputs;
//   requantize 0 (MatMulInteger): y = acc, an invocation per int32 output.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint b[]; };
// The zero points of A (one, one per row, or one per row of each of A's batch matrices), then
// B's likewise per column (from b_zero_start), the multipliers as (mantissa, shift) pairs
// [rows, cols] (from mult_start), then per batch: the element offsets into A and B and the
// first zero point of A and B for that batch.
layout(std430, set = 0, binding = 2) readonly buffer P { int params[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { uint y[]; };

// Must match QLinearMatMulPushConstants in qlinear_matmul.cpp.
layout(push_constant) uniform Params {
  uint count;  // output elements
  uint m, n, k;
  uint a_row_stride, a_col_stride, b_row_stride, b_col_stride;
  uint a_signed, b_signed;
  int y_zero, lo, hi;
  uint a_zero_per_row, b_zero_per_col, b_zero_start;
  uint rows, cols;        // the multipliers' extent: 1 or m (n)
  uint mult_start;        // where the multipliers start in params
  uint batch_offsets;     // where the per-batch table starts in params
  uint requantize_output;
} p;

#include "requantize.glsl"

int product(uint e) {
  const uint col = e % p.n, row = (e / p.n) % p.m, batch = e / (p.n * p.m);
  const uint table = p.batch_offsets + 4u * batch;
  const uint a_base = uint(params[table]) + row * p.a_row_stride;
  const uint b_base = uint(params[table + 1u]) + col * p.b_col_stride;
  const int za = params[uint(params[table + 2u]) + (p.a_zero_per_row != 0u ? row : 0u)];
  const int zb =
      params[p.b_zero_start + uint(params[table + 3u]) + (p.b_zero_per_col != 0u ? col : 0u)];
  // Summed as uint: each product fits int32 but long sums wrap, which unsigned arithmetic
  // defines (the CPU wraps the same way).
  uint acc = 0u;
  for (uint i = 0u; i < p.k; ++i) {
    const uint ia = a_base + i * p.a_col_stride, ib = b_base + i * p.b_row_stride;
    acc += uint((byte_of(a[ia >> 2], ia, p.a_signed != 0u) - za) *
                (byte_of(b[ib >> 2], ib, p.b_signed != 0u) - zb));
  }
  return int(acc);
}

int element(uint e) {
  const uint col = e % p.n, row = (e / p.n) % p.m;
  const uint mult =
      p.mult_start + 2u * ((p.rows == 1u ? 0u : row) * p.cols + (p.cols == 1u ? 0u : col));
  return requantize(product(e), params[mult], params[mult + 1u], p.y_zero, p.lo, p.hi);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint word = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (p.requantize_output == 0u) {
    if (word < p.count) y[word] = uint(product(word));
    return;
  }
  const uint first = word * 4u;
  if (first >= p.count) return;
  uint packed = 0u;
  for (uint t = 0u; t < 4u && first + t < p.count; ++t)
    packed |= (uint(element(first + t)) & 0xFFu) << (8u * t);
  y[word] = packed;
}
