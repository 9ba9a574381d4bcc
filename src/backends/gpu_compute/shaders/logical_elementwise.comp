#version 450
// Comparisons, boolean logic, IsNaN/IsInf and Where, with numpy broadcasting of up to three
// operands. Operands are float32, int32, int64 (two little-endian words, compared with 32-bit
// operations, so no shaderInt64 is needed) or bool (one byte each); the comparisons also take
// int8, uint8, int16, uint16 (packed in words), uint32 and uint64, and Where moves values of any
// of those types (bool ones as uint8). A bool output, and a Where output of 1- or 2-byte values,
// is written a whole word per invocation, so no two invocations write the same word.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint b[]; };
layout(std430, set = 0, binding = 2) readonly buffer C { uint c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { uint dst[]; };

// Must match LogicalPushConstants in logical_elementwise.h.
layout(push_constant) uniform Params {
  uint op;     // LogicalOp
  uint type;   // compared operands' type (comparisons), values' type (Where)
  uint flags;  // IsInf: 1 detects +inf, 2 detects -inf
  uint count;  // output elements
  uint rank;   // <= 6
  uint shape[6];
  uint a_stride[6];
  uint b_stride[6];
  uint c_stride[6];
} p;

const uint F32 = 0, I32 = 1, I64 = 2, I8 = 3, U8 = 4, I16 = 5, U16 = 6, U32 = 7, U64 = 8;
const uint EQUAL = 0, LESS = 1, LESS_EQUAL = 2, GREATER = 3, GREATER_EQUAL = 4, AND = 5, OR = 6,
           XOR = 7, NOT = 8, IS_NAN = 9, IS_INF = 10, WHERE = 11;

uint byte_of_a(uint k) { return (a[k >> 2] >> ((k & 3u) * 8u)) & 0xffu; }
uint byte_of_b(uint k) { return (b[k >> 2] >> ((k & 3u) * 8u)) & 0xffu; }

// -1, 0 or 1 as x compares to y; 2 when unordered (a NaN), which every comparison treats as
// false.
int compare_ints(int x, int y) { return x < y ? -1 : (x > y ? 1 : 0); }
int compare_uints(uint x, uint y) { return x < y ? -1 : (x > y ? 1 : 0); }

// A 16-bit element of a or b, sign-extended when `signed_`.
int half_of_a(uint k, bool signed_) {
  const uint v = (a[k >> 1] >> ((k & 1u) * 16u)) & 0xffffu;
  return signed_ ? (int(v << 16) >> 16) : int(v);
}
int half_of_b(uint k, bool signed_) {
  const uint v = (b[k >> 1] >> ((k & 1u) * 16u)) & 0xffffu;
  return signed_ ? (int(v << 16) >> 16) : int(v);
}

int compare(uint ia, uint ib) {
  switch (p.type) {
    case I8: return compare_ints(int(byte_of_a(ia) << 24) >> 24, int(byte_of_b(ib) << 24) >> 24);
    case U8: return compare_uints(byte_of_a(ia), byte_of_b(ib));
    case I16: case U16: return compare_ints(half_of_a(ia, p.type == I16), half_of_b(ib, p.type == I16));
    case U32: return compare_uints(a[ia], b[ib]);
    case U64: {
      const uint xh = a[2 * ia + 1], yh = b[2 * ib + 1];
      if (xh != yh) return xh < yh ? -1 : 1;
      return compare_uints(a[2 * ia], b[2 * ib]);
    }
    default: break;
  }
  if (p.type == F32) {
    const float x = uintBitsToFloat(a[ia]), y = uintBitsToFloat(b[ib]);
    if (isnan(x) || isnan(y)) return 2;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (p.type == I32) {
    const int x = int(a[ia]), y = int(b[ib]);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const int xh = int(a[2 * ia + 1]), yh = int(b[2 * ib + 1]);
  if (xh != yh) return xh < yh ? -1 : 1;
  const uint xl = a[2 * ia], yl = b[2 * ib];
  return xl < yl ? -1 : (xl > yl ? 1 : 0);
}

// The bool result of output element i at operand element indices ia, ib.
bool truth(uint ia, uint ib) {
  switch (p.op) {
    case EQUAL: return compare(ia, ib) == 0;
    case LESS: return compare(ia, ib) == -1;
    case LESS_EQUAL: { const int r = compare(ia, ib); return r == -1 || r == 0; }
    case GREATER: return compare(ia, ib) == 1;
    case GREATER_EQUAL: { const int r = compare(ia, ib); return r == 1 || r == 0; }
    case AND: return byte_of_a(ia) != 0u && byte_of_b(ib) != 0u;
    case OR: return byte_of_a(ia) != 0u || byte_of_b(ib) != 0u;
    case XOR: return (byte_of_a(ia) != 0u) != (byte_of_b(ib) != 0u);
    case NOT: return byte_of_a(ia) == 0u;
    case IS_NAN: return isnan(uintBitsToFloat(a[ia]));
    default: {  // IS_INF
      const uint bits = a[ia];
      if ((bits & 0x7fffffffu) != 0x7f800000u) return false;
      return (bits >> 31) == 0u ? (p.flags & 1u) != 0u : (p.flags & 2u) != 0u;
    }
  }
}

// Operand element indices of output element i.
uvec3 operands(uint i) {
  uint rest = i;
  uvec3 idx = uvec3(0u);
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint coord = rest % p.shape[d];
    rest /= p.shape[d];
    idx += coord * uvec3(p.a_stride[d], p.b_stride[d], p.c_stride[d]);
  }
  return idx;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;

  if (p.op == WHERE && (p.type == I8 || p.type == U8 || p.type == I16 || p.type == U16)) {
    // Invocation i owns output word i: 4 bytes or 2 halves.
    const uint size = (p.type == I8 || p.type == U8) ? 1u : 2u;
    const uint per = 4u / size, bits = 8u * size, mask = (1u << bits) - 1u;
    if (per * i >= p.count) return;
    uint word = 0u;
    for (uint e = 0u; e < per; ++e) {
      const uint k = per * i + e;
      if (k >= p.count) break;
      const uvec3 idx = operands(k);
      const bool pick_b = byte_of_a(idx.x) != 0u;
      const uint at = pick_b ? idx.y : idx.z;
      const uint w = pick_b ? b[at / per] : c[at / per];
      word |= ((w >> ((at % per) * bits)) & mask) << (e * bits);
    }
    dst[i] = word;
    return;
  }
  if (p.op == WHERE) {
    if (i >= p.count) return;
    const uvec3 idx = operands(i);
    const bool pick_b = byte_of_a(idx.x) != 0u;
    if (p.type == I64 || p.type == U64) {
      dst[2 * i] = pick_b ? b[2 * idx.y] : c[2 * idx.z];
      dst[2 * i + 1] = pick_b ? b[2 * idx.y + 1] : c[2 * idx.z + 1];
    } else {
      dst[i] = pick_b ? b[idx.y] : c[idx.z];
    }
    return;
  }
  // Invocation i owns bool outputs 4i .. 4i+3.
  if (4u * i >= p.count) return;
  uint word = 0u;
  for (uint e = 0u; e < 4u; ++e) {
    const uint k = 4u * i + e;
    if (k >= p.count) break;
    const uvec3 idx = operands(k);
    if (truth(idx.x, idx.y)) word |= 1u << (8u * e);
  }
  dst[i] = word;
}
