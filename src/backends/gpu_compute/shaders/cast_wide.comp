#version 450
// Cast between every fixed-size ONNX type: the 8-, 16-, 32- and 64-bit integers, bool, float64,
// float32, float16, bfloat16, the four float8 types, float8e8m0, float4e2m1 and the 4- and 2-bit
// integers (one element per byte in kiln's memory, sign-extended when signed). Bit for bit as the
// CPU's Cast (backends/cpu/cast_convert.h, core/float_types.cpp, ops/cast.cpp):
//  - float to integer truncates toward zero; NaN or a value outside int32 (int64) becomes its
//    minimum, 8- and 16-bit targets go through int32, uint32 and the sub-byte ones through
//    int64 (keeping the low bits), uint64 takes [2^63, 2^64) exactly;
//  - integer to integer keeps the low bits; anything to bool is "!= 0" (NaN is true);
//  - to float32 and float64 round to nearest even once; to the narrower floats the value goes
//    through float32, rounded to odd from float64 and the wide integers (so that the second
//    rounding is exact), then rounds to nearest even with the target's saturation rules
//    (`saturate` for float8; float4 always saturates; float8e8m0 by `round_mode`).
// Types of the narrower set of cast.comp go there: this kernel needs shaderInt64. Floats are
// handled as bits throughout (float64 too, so shaderFloat64 is not needed), which keeps NaN
// payloads and subnormals whatever the device's float arithmetic does with them.
//
// Each invocation writes one whole output word (four 1-byte elements, two 2-byte ones, one
// 4-byte one) or one 8-byte element, so writes never race.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };

// Must match WideCastPushConstants in cast.cpp. Types are ONNX's TensorProto codes.
layout(push_constant) uniform Params {
  uint count;  // elements
  uint from;
  uint to;
  uint saturate;    // 1: float8 overflow saturates
  uint round_mode;  // E8M0Rounding: 0 up, 1 down, 2 nearest
} p;

const uint F32 = 1, U8 = 2, I8 = 3, U16 = 4, I16 = 5, I32 = 6, I64 = 7, BOOL = 9, F16 = 10,
           F64 = 11, U32 = 12, U64 = 13, BF16 = 16, E4M3FN = 17, E4M3FNUZ = 18, E5M2 = 19,
           E5M2FNUZ = 20, U4 = 21, I4 = 22, F4 = 23, E8M0 = 24, U2 = 25, I2 = 26;

#include "half_bits.glsl"

uint byte_size(uint t) {
  switch (t) {
    case F64: case I64: case U64: return 8u;
    case F32: case I32: case U32: return 4u;
    case U16: case I16: case F16: case BF16: return 2u;
    default: return 1u;
  }
}

bool is_float(uint t) {
  return t == F32 || t == F64 || t == F16 || t == BF16 || (t >= E4M3FN && t <= E5M2FNUZ) ||
         t == F4 || t == E8M0;
}

// ---- Narrow float formats (core/float_types.cpp's NarrowFormat) -------------------------------

#include "narrow_float.glsl"

uint decode_e8m0(uint code) {
  if (code == 0xffu) return 0x7fc00000u;
  if (code == 0u) return 0x00400000u;  // 2^-127, a float subnormal
  return code << 23;
}

// ops/cast.cpp's to_e8m0 and Float8E8M0's constructor ("up").
uint encode_e8m0(uint bits, bool saturate, uint mode) {
  if (mode == 0u) {
    const uint a = bits & 0x7fffffffu;  // the sign is ignored
    if (a > 0x7f800000u) return 0xffu;
    if (a == 0x7f800000u) return saturate ? 0xfeu : 0xffu;
    if (a <= 0x00400000u) return 0u;
    if (a < 0x00800000u) return 1u;
    const uint rounded = (a >> 23) + ((a & 0x7fffffu) != 0u ? 1u : 0u);
    return rounded == 0xffu && saturate ? 0xfeu : rounded;
  }
  uint exponent = (bits >> 23) & 0xffu;
  if (exponent == 0xffu) return (bits & 0x7fffffu) == 0u && saturate ? 0xfeu : 0xffu;
  if (mode == 2u) {
    const bool guard = (bits & 0x400000u) != 0u;
    const bool rest = (bits & 0x3fffffu) != 0u;
    if (guard && (rest || exponent > 0u) && !(saturate && exponent == 0xfeu)) ++exponent;
  }
  return exponent;
}

// ---- 64-bit values ---------------------------------------------------------------------------

int msb64(uint64_t v) {
  const uvec2 w = unpackUint2x32(v);
  return w.y != 0u ? 32 + findMSB(w.y) : findMSB(w.x);
}

// sig 2^lsb (sig != 0) rounded to a binary format with `mantissa_bits` and smallest normal
// exponent `min_exponent`, the exponent unbounded above: the code (biased exponent field and
// fraction) as an integer, which consecutive values make simple (a carry moves into the
// exponent). `odd`: round to odd (truncate, then set the last bit when inexact) instead of to
// nearest even.
uint64_t round_significand(uint64_t sig, int lsb, int mantissa_bits, int min_exponent, bool odd) {
  const int exponent = max(msb64(sig) + lsb, min_exponent);
  const int shift = exponent - mantissa_bits - lsb;
  uint64_t quotient;
  if (shift <= 0) {
    quotient = sig << uint(-shift);
  } else {
    uint64_t remainder;
    bool above, tie;
    if (shift >= 64) {
      quotient = 0ul;
      remainder = sig;
      const uint64_t half_ = 1ul << 63;
      above = shift == 64 && sig > half_;
      tie = shift == 64 && sig == half_;
    } else {
      quotient = sig >> uint(shift);
      remainder = sig & ((1ul << uint(shift)) - 1ul);
      const uint64_t half_ = 1ul << uint(shift - 1);
      above = remainder > half_;
      tie = remainder == half_;
    }
    if (odd) {
      if (remainder != 0ul) quotient |= 1ul;
    } else if (above || (tie && (quotient & 1ul) != 0ul)) {
      ++quotient;
    }
  }
  return (uint64_t(exponent - min_exponent) << uint(mantissa_bits)) + quotient;
}

// float32 bits to float64 bits, exactly (NaN made quiet, keeping its payload, as x86 does).
uint64_t f32_to_f64(uint b) {
  const uint64_t sign = uint64_t(b & 0x80000000u) << 32;
  const uint e = (b >> 23) & 0xffu;
  const uint m = b & 0x7fffffu;
  if (e == 0xffu) {
    const uint64_t inf = 0x7ff0000000000000ul;
    return m == 0u ? sign | inf : sign | inf | (1ul << 51) | (uint64_t(m) << 29);
  }
  if (e == 0u) {
    if (m == 0u) return sign;
    const int lead = findMSB(m);  // a float subnormal is a normal double
    return sign | (uint64_t(lead - 149 + 1023) << 52) |
           (uint64_t(m ^ (1u << uint(lead))) << uint(52 - lead));
  }
  return sign | (uint64_t(e - 127u + 1023u) << 52) | (uint64_t(m) << 29);
}

// float64 bits to float32 bits, rounded to nearest even (NaN quiet, the top of its payload
// kept), or to odd (ops' round_to_odd_float: beyond the range it stays at the largest float).
uint f64_to_f32(uint64_t d, bool odd) {
  const uint hi = uint(d >> 32);
  const uint sign = hi & 0x80000000u;
  const uint e = (hi >> 20) & 0x7ffu;
  const uint64_t m = d & 0xffffffffffffful;
  if (e == 0x7ffu) return m == 0ul ? sign | 0x7f800000u : sign | 0x7fc00000u | uint(m >> 29);
  if (e == 0u && m == 0ul) return sign;
  const uint64_t sig = e == 0u ? m : m | (1ul << 52);
  const int lsb = e == 0u ? -1074 : int(e) - 1075;
  const uint64_t code = round_significand(sig, lsb, 23, -126, odd);
  if (code >= 0x7f800000ul) return sign | (odd ? 0x7f7fffffu : 0x7f800000u);
  return sign | uint(code);
}

// An integer (two's complement, or unsigned for uint64) to float64 or float32 bits, rounded to
// nearest even.
uint64_t int_to_f64(uint64_t v, bool is_unsigned) {
  const bool negative = !is_unsigned && int64_t(v) < 0l;
  const uint64_t magnitude = negative ? uint64_t(-int64_t(v)) : v;  // 2^63 for the minimum
  if (magnitude == 0ul) return 0ul;
  return (negative ? 1ul << 63 : 0ul) | round_significand(magnitude, 0, 52, -1022, false);
}

uint int_to_f32(uint64_t v, bool is_unsigned) {
  const bool negative = !is_unsigned && int64_t(v) < 0l;
  const uint64_t magnitude = negative ? uint64_t(-int64_t(v)) : v;
  if (magnitude == 0ul) return 0u;
  return (negative ? 0x80000000u : 0u) | uint(round_significand(magnitude, 0, 23, -126, false));
}

// Truncation of float64 `d` toward zero: false when NaN or |d| >= 2^64, else its magnitude.
bool truncated(uint64_t d, out bool negative, out uint64_t magnitude) {
  const uint e = uint(d >> 52) & 0x7ffu;
  negative = (d >> 63) != 0ul;
  magnitude = 0ul;
  if (e == 0x7ffu) return false;
  if (e < 1023u) return true;  // |d| < 1
  const int exponent = int(e) - 1023;
  if (exponent >= 64) return false;
  const uint64_t sig = (d & 0xffffffffffffful) | (1ul << 52);
  magnitude = exponent >= 52 ? sig << uint(exponent - 52) : sig >> uint(52 - exponent);
  return true;
}

uint64_t signed_of(bool negative, uint64_t magnitude) {
  return negative ? uint64_t(-int64_t(magnitude)) : magnitude;
}

// cast_convert.h's float_to_int64_x86 and float_to_int32_x86.
uint64_t f64_to_i64(uint64_t d) {
  bool negative;
  uint64_t magnitude;
  const uint64_t lowest = 1ul << 63;
  if (!truncated(d, negative, magnitude) || magnitude > lowest || (!negative && magnitude == lowest))
    return lowest;
  return signed_of(negative, magnitude);
}

uint f64_to_i32(uint64_t d) {
  bool negative;
  uint64_t magnitude;
  const uint64_t lowest = 1ul << 31;
  if (!truncated(d, negative, magnitude) || magnitude > lowest || (!negative && magnitude == lowest))
    return 0x80000000u;
  return uint(signed_of(negative, magnitude));
}

// ---- Elements --------------------------------------------------------------------------------

// Element k of the input as raw bits.
uint64_t raw(uint k) {
  switch (byte_size(p.from)) {
    case 8u: return packUint2x32(uvec2(src[2u * k], src[2u * k + 1u]));
    case 4u: return uint64_t(src[k]);
    case 2u: return uint64_t((src[k >> 1] >> ((k & 1u) * 16u)) & 0xffffu);
    default: return uint64_t((src[k >> 2] >> ((k & 3u) * 8u)) & 0xffu);
  }
}

// Element k of an integer or bool input as a 64-bit integer (sign-extended for signed types).
uint64_t integer_at(uint k) {
  const uint64_t v = raw(k);
  switch (p.from) {
    case I8: case I4: case I2: return uint64_t(int64_t(int(uint(v) << 24) >> 24));
    case I16: return uint64_t(int64_t(int(uint(v) << 16) >> 16));
    case I32: return uint64_t(int64_t(int(uint(v))));
    case BOOL: return v != 0ul ? 1ul : 0ul;
    default: return v;
  }
}

// Element k of a float input other than float64 as float32 bits (exact).
uint float32_at(uint k) {
  const uint v = uint(raw(k));
  switch (p.from) {
    case F32: return v;
    case F16: return f16_to_f32_bits(v);
    case BF16: return v << 16;
    case E8M0: return decode_e8m0(v);
    case F4: return decode_narrow(v & 0xfu, format_of(F4));
    default: return decode_narrow(v, format_of(p.from));
  }
}

// The sub-byte integers keep the low 4 (2) bits of the value, sign-extended when signed.
uint small_int(uint64_t v, uint t) {
  const uint bits = (t == I4 || t == U4) ? 4u : 2u;
  const uint low = uint(v) & ((1u << bits) - 1u);
  if (t == U4 || t == U2) return low;
  const uint top = 1u << (bits - 1u);
  return uint(int(low ^ top) - int(top)) & 0xffu;
}

// An integer to integer type `t`: the low bits.
uint64_t narrowed(uint64_t v, uint t) {
  if (t == I4 || t == U4 || t == I2 || t == U2) return uint64_t(small_int(v, t));
  return v;  // the writer keeps the low bytes
}

// Element k converted to the output type, as bits (the low byte_size(p.to) bytes count).
uint64_t converted(uint k) {
  const uint to = p.to;
  const bool saturate = p.saturate != 0u;
  if (is_float(p.from)) {
    const bool wide = p.from == F64;
    const uint f32 = wide ? 0u : float32_at(k);
    const uint64_t f64 = wide ? raw(k) : f32_to_f64(f32);
    switch (to) {
      case BOOL: return (f64 << 1) != 0ul ? 1ul : 0ul;
      case F32: return uint64_t(wide ? f64_to_f32(f64, false) : f32);
      case F64: return f64;
      case I64: return f64_to_i64(f64);
      case I32: case I16: case U16: case I8: case U8: return uint64_t(f64_to_i32(f64));
      case U32: return f64_to_i64(f64);
      case U64: {
        bool negative;
        uint64_t magnitude;
        if (truncated(f64, negative, magnitude) && !negative && magnitude >= (1ul << 63))
          return magnitude;
        return f64_to_i64(f64);
      }
      case I4: case U4: case I2: case U2: return uint64_t(small_int(f64_to_i64(f64), to));
      default: break;  // the narrow floats, below
    }
    const uint x = wide ? f64_to_f32(f64, true) : f32;
    switch (to) {
      case F16: return uint64_t(f32_bits_to_f16(x));
      case BF16: return uint64_t(f32_bits_to_bf16(x));
      case E8M0: return uint64_t(encode_e8m0(x, saturate, p.round_mode));
      default: return uint64_t(encode_narrow(x, format_of(to), saturate || to == F4));
    }
  }
  const uint64_t v = integer_at(k);
  const bool is_unsigned = p.from == U64;
  switch (to) {
    case BOOL: return v != 0ul ? 1ul : 0ul;
    case F32: return uint64_t(int_to_f32(v, is_unsigned));
    case F64: return int_to_f64(v, is_unsigned);
    case F16: case BF16: case E4M3FN: case E4M3FNUZ: case E5M2: case E5M2FNUZ: case F4: case E8M0:
      break;
    default: return narrowed(v, to);
  }
  const uint x = f64_to_f32(int_to_f64(v, is_unsigned), true);
  switch (to) {
    case F16: return uint64_t(f32_bits_to_f16(x));
    case BF16: return uint64_t(f32_bits_to_bf16(x));
    // A bool becomes its uint8 0 or 1 first, which converts with the default rounding.
    case E8M0: return uint64_t(encode_e8m0(x, saturate, p.from == BOOL ? 0u : p.round_mode));
    default: return uint64_t(encode_narrow(x, format_of(to), saturate || to == F4));
  }
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  const uint size = byte_size(p.to);
  if (size == 8u) {
    if (i >= p.count) return;
    const uvec2 v = unpackUint2x32(converted(i));
    dst[2u * i] = v.x;
    dst[2u * i + 1u] = v.y;
    return;
  }
  // Invocation i owns output word i: elements per*i .. per*i + per - 1.
  const uint per = 4u / size;
  if (per * i >= p.count) return;
  const uint mask = size == 4u ? 0xffffffffu : (1u << (8u * size)) - 1u;
  uint word = 0u;
  for (uint b = 0u; b < per; ++b) {
    const uint k = per * i + b;
    if (k < p.count) word |= (uint(converted(k)) & mask) << (8u * size * b);
  }
  dst[i] = word;
}
