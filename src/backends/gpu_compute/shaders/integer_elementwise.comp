#version 450
// Integer arithmetic with numpy broadcasting on int8, uint8, int16, uint16, int32, uint32, int64
// or uint64: Add, Sub, Mul (wrapping), Div (truncating), Mod (fmod 0: the divisor's sign, fmod 1:
// the dividend's), Max, Min, the bitwise And, Or and Xor, and the unary Neg, Abs and bitwise Not
// (which read `a` only); BitShift (the unsigned types: a shift by the width or more gives 0) and
// Pow (an exponent of the base's type: by repeated squaring, wrapping; or, for int32 and int64
// bases, a float32 exponent). The 8-, 16- and 32-bit types compute in 32 bits (sign-extended for
// the signed ones) and keep the low bits, which is what the CPU's wrapping arithmetic in the
// narrow type gives; the 64-bit ones in 64.
// Division or Mod by zero gives 0: a divisor the host can see is checked there first (the CPU
// kernel reports it), so this only defines what a divisor computed on the device produces
// instead of leaving it undefined.
//
// 8- and 16-bit elements are packed in words: each invocation computes the elements of one
// whole output word, so no two invocations write the same word.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A32 { uint a32[]; };
layout(std430, set = 0, binding = 1) readonly buffer B32 { uint b32[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C32 { uint c32[]; };
layout(std430, set = 0, binding = 0) readonly buffer A64 { uint64_t a64[]; };
layout(std430, set = 0, binding = 1) readonly buffer B64 { uint64_t b64[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C64 { uint64_t c64[]; };

// Must match IntegerPushConstants in integer_elementwise.h.
layout(push_constant) uniform Params {
  uint op;     // IntegerOp
  uint rank;   // <= 6
  uint count;  // elements of c
  uint shape[6];
  uint a_stride[6];
  uint b_stride[6];
  uint type;  // IntegerType
} p;

const uint ADD = 0, SUB = 1, MUL = 2, DIV = 3, MOD = 4, FMOD = 5, MAX = 6, MIN = 7, NEG = 8,
           ABS = 9, AND = 10, OR = 11, XOR = 12, NOT = 13, SHIFT_LEFT = 14, SHIFT_RIGHT = 15,
           POW = 16, POW_FLOAT = 17;
const uint I32 = 0, I64 = 1, I8 = 2, U8 = 3, I16 = 4, U16 = 5, U32 = 6, U64 = 7;

uint byte_size();

// x^y for y >= 0 by repeated squaring, wrapping as the CPU's integer Pow does. For a negative y
// the CPU converts C's pow(x, y) to the integer: 1 and -1 stay (-1 by y's parity), 0 gives inf,
// which converts to `lowest` (x86's out-of-range result; the narrow types keep its low bits, 0),
// and every other base a fraction, which truncates to 0.
#define INT_POW(T, SIGNED, LOWEST)                                                      \
  T int_pow(T x, T y) {                                                                 \
    if (SIGNED && y < T(0)) {                                                           \
      if (x == T(1)) return T(1);                                                       \
      if (x == T(-1)) return (y & T(1)) != T(0) ? T(-1) : T(1);                         \
      return x == T(0) ? LOWEST : T(0);                                                 \
    }                                                                                   \
    T result = T(1), base = x;                                                          \
    for (T e = y; e != T(0); e >>= T(1)) {                                              \
      if ((e & T(1)) != T(0)) result *= base;                                           \
      base *= base;                                                                     \
    }                                                                                   \
    return result;                                                                      \
  }
INT_POW(int, true, int(0x80000000u))
INT_POW(uint, false, 0u)
INT_POW(int64_t, true, int64_t(0x8000000000000000ul))
INT_POW(uint64_t, false, 0ul)

// Truncating division and remainder without the undefined cases: y == 0 gives 0, and for the
// signed types y == -1 negates with wrapping (INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0).
// Shifts by the type's width or more give 0, as on the CPU (GLSL leaves them undefined).
#define APPLY(T, SIGNED)                                                                \
  T apply(T x, T y) {                                                                   \
    switch (p.op) {                                                                     \
      case SHIFT_LEFT: return y >= T(8u * byte_size()) ? T(0) : x << y;                 \
      case SHIFT_RIGHT: return y >= T(8u * byte_size()) ? T(0) : x >> y;                \
      case POW: return int_pow(x, y);                                                   \
      case ADD: return x + y;                                                           \
      case SUB: return x - y;                                                           \
      case MUL: return x * y;                                                           \
      case DIV:                                                                         \
        if (y == T(0)) return T(0);                                                     \
        if (SIGNED && y == T(-1)) return T(0) - x;                                      \
        return x / y;                                                                   \
      case MOD:                                                                         \
      case FMOD: {                                                                      \
        if (y == T(0) || (SIGNED && y == T(-1))) return T(0);                           \
        T r = x - (x / y) * y;                                                          \
        if (SIGNED && p.op == MOD && r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;   \
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
APPLY(int, true)
APPLY(uint, false)
APPLY(int64_t, true)
APPLY(uint64_t, false)

uint byte_size() {
  switch (p.type) {
    case I64: case U64: return 8u;
    case I32: case U32: return 4u;
    case I16: case U16: return 2u;
    default: return 1u;
  }
}

bool is_signed() { return p.type == I32 || p.type == I64 || p.type == I8 || p.type == I16; }

// Element k of an operand of 1, 2 or 4 bytes (`word` holding it), sign- or zero-extended to 32
// bits: the narrow types compute in 32 bits (their sums, products and quotients wrap to the same
// low bits), the 64-bit ones in 64.
int signed_part(uint word, uint k, uint size) {
  if (size == 4u) return int(word);
  const int bits = int(8u * size);
  return bitfieldExtract(int(word), int(k % (4u / size)) * bits, bits);
}
uint unsigned_part(uint word, uint k, uint size) {
  if (size == 4u) return word;
  const int bits = int(8u * size);
  return bitfieldExtract(word, int(k % (4u / size)) * bits, bits);
}

// Pow of an int32 (`wide` false) or int64 base with a float32 exponent, as the CPU computes it:
// C's pow in double, converted to the integer as x86 does (NaN and values beyond the type give
// its lowest value). An integral exponent is exact: the power by repeated multiplication,
// rounded to double's 53 bits as pow's result would be. A fractional one (a positive base)
// goes through float32 pow, whose result may differ from double's in the last bits. The base
// comes as its sign and magnitude (2^63 for the int64 minimum): with an int64 parameter, an
// int32 base widened to it came out non-negative on lavapipe.
int64_t pow_float_exponent(bool negative_base, uint64_t base, float y, bool wide) {
  const int64_t lowest = wide ? int64_t(0x8000000000000000ul) : int64_t(int(0x80000000u));
  if (base == 1ul && !negative_base) return 1l;  // C's pow(1, y) is 1 even for a NaN y
  if (isnan(y)) return lowest;
  if (y != trunc(y) && !isinf(y)) {  // fractional
    if (negative_base || (base == 0ul && y < 0.0)) return lowest;  // NaN, inf
    if (base == 0ul) return 0l;
    const float r = pow(float(base), y);
    return r < (wide ? 9223372036854775808.0 : 2147483648.0) ? int64_t(r) : lowest;
  }
  // Integral (or infinite) exponents.
  const bool odd = !isinf(y) && abs(y) < 16777216.0 && mod(y, 2.0) == 1.0;
  if (y == 0.0) return 1l;
  if (base == 1ul) return odd ? -1l : 1l;  // -1
  if (y < 0.0) return base == 0ul ? lowest : 0l;  // inf, or a fraction truncated
  if (base == 0ul) return 0l;
  // |x| >= 2: 2^64 overflows every type, so y < 64 here.
  if (y >= 64.0) return lowest;
  uint64_t m = 1ul;
  for (uint e = uint(y); e > 0u; --e) {
    if (m > 0xfffffffffffffffful / base) return lowest;
    m *= base;
  }
  // Rounded to 53 significant bits, ties to even, as a double holds it.
  const uint high = uint(m >> 32);
  const int msb = high != 0u ? findMSB(high) + 32 : findMSB(uint(m));
  if (msb > 52) {
    const uint drop = uint(msb - 52);
    const uint64_t unit = 1ul << drop, rest = m & (unit - 1ul), halfway = unit >> 1;
    m -= rest;
    if (rest > halfway || (rest == halfway && (m & unit) != 0ul)) m += unit;
  }
  const bool negative = negative_base && odd;
  const uint64_t limit = wide ? 0x8000000000000000ul : 0x80000000ul;
  if (m > limit || (m == limit && !negative)) return lowest;
  return negative ? -int64_t(m) : int64_t(m);
}

// The broadcast operand indices of output element i.
uvec2 operands(uint i) {
  uint rest = i, ia = 0, ib = 0;
  for (int d = int(p.rank) - 1; d >= 0; --d) {
    const uint coord = rest % p.shape[d];
    rest /= p.shape[d];
    ia += coord * p.a_stride[d];
    ib += coord * p.b_stride[d];
  }
  return uvec2(ia, ib);
}

// Output element i of an operand type of 4 bytes or less, as its low 32 bits.
uint element32(uint i, uint size) {
  const uvec2 k = operands(i);
  if (p.op == POW_FLOAT) {  // int32 bases only among the 32-bit types (the host checks)
    const int x = int(a32[k.x]);
    const uint magnitude = x < 0 ? uint(-x) : uint(x);  // 2^31 for the minimum
    return unpack32(uint64_t(pow_float_exponent(x < 0, uint64_t(magnitude),
                                                uintBitsToFloat(b32[k.y]), false))).x;
  }
  const uint wa = a32[(k.x * size) >> 2], wb = b32[(k.y * size) >> 2];
  if (is_signed()) return uint(apply(signed_part(wa, k.x, size), signed_part(wb, k.y, size)));
  return apply(unsigned_part(wa, k.x, size), unsigned_part(wb, k.y, size));
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  const uint size = byte_size();
  if (size == 8u) {
    if (i >= p.count) return;
    const uvec2 k = operands(i);
    if (p.op == POW_FLOAT) {  // int64 bases only among the 64-bit types (the host checks)
      const uint64_t x = a64[k.x];
      const bool negative = (x >> 63) != 0ul;
      c64[i] = uint64_t(pow_float_exponent(negative, negative ? 0ul - x : x,
                                           uintBitsToFloat(b32[k.y]), true));
      return;
    }
    c64[i] = is_signed() ? uint64_t(apply(int64_t(a64[k.x]), int64_t(b64[k.y])))
                         : apply(a64[k.x], b64[k.y]);
    return;
  }
  // Invocation i owns output word i.
  const uint per = 4u / size;
  if (per * i >= p.count) return;
  const uint bits = 8u * size;
  uint word = 0u;
  for (uint e = 0u; e < per; ++e) {
    const uint k = per * i + e;
    if (k >= p.count) break;
    const uint v = element32(k, size);
    word |= size == 4u ? v : (v & ((1u << bits) - 1u)) << (e * bits);
  }
  c32[i] = word;
}
