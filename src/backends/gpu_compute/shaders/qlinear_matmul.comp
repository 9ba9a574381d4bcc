#version 450
// QLinearMatMul: int8/uint8 operands less their zero points multiplied exactly in int32, then
// requantized: y = saturate(round_half_even(acc * multiplier + y_zero_point)). The host gives
// each multiplier as an integer mantissa and a right shift (multiplier = mantissa * 2^-shift,
// exact), so the rounding is done exactly in 64-bit integers, as the CPU's double arithmetic
// does for any sum below 2^53. An invocation writes one word: four 8-bit outputs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint b[]; };
// The zero points of A's rows (or one), of B's columns (or one), the multipliers as (mantissa,
// shift) pairs [rows, cols], then each batch's element offsets into A and B.
layout(std430, set = 0, binding = 2) readonly buffer P { int params[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Y { uint y[]; };

// Must match QLinearMatMulPushConstants in qlinear_matmul.cpp.
layout(push_constant) uniform Params {
  uint count;  // output elements
  uint m, n, k;
  uint a_row_stride, a_col_stride, b_row_stride, b_col_stride;
  uint a_signed, b_signed;
  int y_zero, lo, hi;
  uint a_zeros, b_zeros;  // 1 or m (n)
  uint rows, cols;        // the multipliers' extent: 1 or m (n)
  uint batch_offsets;     // where the per-batch offsets start in params
} p;

// Byte `index` of a word array, as a signed or unsigned 8-bit value.
int byte_of(uint word, uint index, bool is_signed) {
  const uint v = (word >> (8u * (index & 3u))) & 0xFFu;
  return is_signed ? (int(v << 24) >> 24) : int(v);
}

// round_half_even(acc * mantissa * 2^-shift + y_zero), saturated.
int requantize(int acc, int mantissa, int shift) {
  const int64_t v = int64_t(acc) * int64_t(mantissa) + (int64_t(p.y_zero) << shift);
  if (shift == 0) return int(clamp(v, int64_t(p.lo), int64_t(p.hi)));
  int64_t q = v >> shift;  // floor
  const int64_t rest = v - (q << shift);
  const int64_t midpoint = int64_t(1) << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (q & int64_t(1)) != int64_t(0))) q += int64_t(1);
  return int(clamp(q, int64_t(p.lo), int64_t(p.hi)));
}

int element(uint e) {
  const uint col = e % p.n, row = (e / p.n) % p.m, batch = e / (p.n * p.m);
  const uint a_base = uint(params[p.batch_offsets + 2u * batch]) + row * p.a_row_stride;
  const uint b_base = uint(params[p.batch_offsets + 2u * batch + 1u]) + col * p.b_col_stride;
  const int za = params[p.a_zeros == 1u ? 0u : row];
  const int zb = params[p.a_zeros + (p.b_zeros == 1u ? 0u : col)];
  int acc = 0;
  for (uint i = 0u; i < p.k; ++i) {
    const uint ia = a_base + i * p.a_col_stride, ib = b_base + i * p.b_row_stride;
    acc += (byte_of(a[ia >> 2], ia, p.a_signed != 0u) - za) *
           (byte_of(b[ib >> 2], ib, p.b_signed != 0u) - zb);
  }
  const uint mult = p.a_zeros + p.b_zeros +
                    2u * ((p.rows == 1u ? 0u : row) * p.cols + (p.cols == 1u ? 0u : col));
  return requantize(acc, params[mult], params[mult + 1u]);
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint word = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  const uint first = word * 4u;
  if (first >= p.count) return;
  uint packed = 0u;
  for (uint t = 0u; t < 4u && first + t < p.count; ++t)
    packed |= (uint(element(first + t)) & 0xFFu) << (8u * t);
  y[word] = packed;
}
