#version 450
// Integer arithmetic on int32 or int64 with numpy broadcasting: Add, Sub, Mul (wrapping), Div
// (truncating), Mod (fmod 0: the divisor's sign, fmod 1: the dividend's), Max, Min, the bitwise
// And, Or and Xor, and the unary Neg, Abs and bitwise Not (which read `a` only). Division or Mod by zero gives 0: a divisor the host
// can see is checked there first (the CPU kernel reports it), so this only defines what a
// divisor computed on the device produces instead of leaving it undefined.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A32 { int a32[]; };
layout(std430, set = 0, binding = 1) readonly buffer B32 { int b32[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C32 { int c32[]; };
layout(std430, set = 0, binding = 0) readonly buffer A64 { int64_t a64[]; };
layout(std430, set = 0, binding = 1) readonly buffer B64 { int64_t b64[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C64 { int64_t c64[]; };

// Must match IntegerPushConstants in integer_elementwise.h.
layout(push_constant) uniform Params {
  uint op;     // IntegerOp
  uint rank;   // <= 6
  uint count;  // elements of c
  uint shape[6];
  uint a_stride[6];
  uint b_stride[6];
  uint is64;  // 1: int64 elements
} p;

const uint ADD = 0, SUB = 1, MUL = 2, DIV = 3, MOD = 4, FMOD = 5, MAX = 6, MIN = 7, NEG = 8,
           ABS = 9, AND = 10, OR = 11, XOR = 12, NOT = 13;

// Truncating division and remainder without the undefined cases: y == 0 gives 0, and y == -1
// negates with wrapping (INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0). One definition per width.
#define APPLY(T)                                                                        \
  T apply(T x, T y) {                                                                   \
    switch (p.op) {                                                                     \
      case ADD: return x + y;                                                           \
      case SUB: return x - y;                                                           \
      case MUL: return x * y;                                                           \
      case DIV:                                                                         \
        if (y == T(0)) return T(0);                                                     \
        if (y == T(-1)) return T(0) - x;                                                \
        return x / y;                                                                   \
      case MOD:                                                                         \
      case FMOD: {                                                                      \
        if (y == T(0) || y == T(-1)) return T(0);                                       \
        T r = x - (x / y) * y;                                                          \
        if (p.op == MOD && r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;             \
        return r;                                                                       \
      }                                                                                 \
      case MAX: return max(x, y);                                                       \
      case MIN: return min(x, y);                                                       \
      case NEG: return T(0) - x;                                                        \
      case AND: return x & y;                                                           \
      case OR: return x | y;                                                            \
      case XOR: return x ^ y;                                                           \
      case NOT: return ~x;                                                              \
      default: return x < T(0) ? T(0) - x : x;                                          \
    }                                                                                   \
  }
APPLY(int)
APPLY(int64_t)

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;

  uint rest = i, ia = 0, ib = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint coord = rest % p.shape[d];
    rest /= p.shape[d];
    ia += coord * p.a_stride[d];
    ib += coord * p.b_stride[d];
  }
  if (p.is64 == 1u) {
    c64[i] = apply(a64[ia], b64[ib]);
  } else {
    c32[i] = apply(a32[ia], b32[ib]);
  }
}
