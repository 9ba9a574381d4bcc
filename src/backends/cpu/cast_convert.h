// Element conversions between the numeric ONNX types, as the Cast operator defines them and
// without undefined behaviour for any input:
//
//  - to bool: zero (+-0.0) is false, everything else (NaN included) is true;
//  - from bool: 0 or 1;
//  - integer to integer: keep the low bits (two's complement), e.g. int16 200 -> int8 -56;
//  - to a float type: round to nearest even; finite values beyond the target's range become
//    +-inf, or the largest finite value for float8 with `saturate` (see float_types.h);
//  - float to integer: truncate towards zero. ONNX leaves out-of-range values undefined; kiln
//    gives what ONNX Runtime's static_cast gives on x86-64, so models that rely on it keep
//    their results: NaN or a value outside int32 (int64) turns into the "integer indefinite"
//    INT32_MIN (INT64_MIN); int8/int16/uint8/uint16 convert through int32 and uint32 through
//    int64, keeping the low bits (-1.0 -> uint8 255, 300.0 -> uint8 44); uint64 converts
//    values in [2^63, 2^64) exactly and the rest through int64;
//  - to int4/uint4/int2/uint2: convert to int64 as above, then keep the low 4 (2) bits, as
//    ONNX's reference does (float -9 -> int4 7).
//
// Conversions from double (and from integers wider than float's 24-bit mantissa) into the
// narrow float types first round to float32 with round-to-odd, which makes the second rounding
// exact: one correctly rounded result, as if converted directly.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"

namespace kiln::cpu {

// d rounded to float32 towards zero, with the lowest mantissa bit set when inexact.
inline float round_to_odd_float(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

inline int64_t float_to_int64_x86(double x) {
  constexpr double k2_63 = 9223372036854775808.0;
  return x >= -k2_63 && x < k2_63 ? static_cast<int64_t>(x) : std::numeric_limits<int64_t>::min();
}

inline int32_t float_to_int32_x86(double x) {
  return x > -2147483649.0 && x < 2147483648.0 ? static_cast<int32_t>(x)
                                               : std::numeric_limits<int32_t>::min();
}

// A float value (exactly representable in double) to a built-in integer type; see the top.
template <class D>
inline D float_to_int(double x) {
  if constexpr (std::is_same_v<D, int64_t>) {
    return float_to_int64_x86(x);
  } else if constexpr (std::is_same_v<D, int32_t>) {
    return float_to_int32_x86(x);
  } else if constexpr (std::is_same_v<D, uint64_t>) {
    constexpr double k2_63 = 9223372036854775808.0, k2_64 = 18446744073709551616.0;
    if (x >= k2_63 && x < k2_64) return static_cast<uint64_t>(x);
    return static_cast<uint64_t>(float_to_int64_x86(x));
  } else if constexpr (std::is_same_v<D, uint32_t>) {
    return static_cast<uint32_t>(float_to_int64_x86(x));
  } else {
    static_assert(sizeof(D) <= 2);
    return static_cast<D>(float_to_int32_x86(x));
  }
}

// Inline float16/bfloat16 conversions, bit for bit those of float_types.cpp (NaN payloads
// included), so that the common casts of mixed-precision models vectorise instead of calling
// out per element.
inline Float16 float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7FFFFFFFu;
  uint32_t h;
  if (x > 0x7F800000u) {
    h = 0x7E00u | ((x >> 13) & 0x3FFu);  // quiet NaN keeping the top of the payload
  } else if (x >= 0x47800000u) {
    h = 0x7C00u;  // 2^16 and above (and inf): overflow
  } else if (x < 0x38800000u) {
    // Below half's smallest normal: adding 0.5 (whose ulp is 2^-24, half's subnormal
    // quantum) makes the FPU round to nearest even at that quantum; the low bits are the code.
    h = std::bit_cast<uint32_t>(std::bit_cast<float>(x) + 0.5f) - 0x3F000000u;
  } else {
    // Rebias the exponent (127 -> 15, modulo 2^32) and round the 13 dropped bits to nearest
    // even; a carry moves into the exponent, up to infinity.
    x += 0xC8000FFFu + ((x >> 13) & 1u);
    h = x >> 13;
  }
  return Float16::from_bits(static_cast<uint16_t>(sign | h));
}

inline float half_to_float(Float16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t magnitude = h.bits & 0x7FFFu;
  uint32_t f;
  if (magnitude >= 0x7C00u) {
    f = 0x7F800000u | ((magnitude & 0x3FFu) << 13);  // inf, NaN with its payload
  } else if (magnitude < 0x400u) {
    // Subnormal or zero: the mantissa times 2^-24, exact in float.
    return std::bit_cast<float>(
        sign | std::bit_cast<uint32_t>(static_cast<float>(magnitude) * 5.9604644775390625e-8f));
  } else {
    f = (magnitude << 13) + (112u << 23);
  }
  return std::bit_cast<float>(sign | f);
}

inline BFloat16 float_to_bfloat16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return BFloat16::from_bits(static_cast<uint16_t>((x >> 16) | 0x40u));
  return BFloat16::from_bits(static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16));
}

// A narrow float type from float32; `saturate` matters only for the float8 types.
template <class D>
inline D make_small_float(float f, bool saturate) {
  if constexpr (std::is_same_v<D, Float16>) {
    return float_to_half(f);
  } else if constexpr (std::is_same_v<D, BFloat16>) {
    return float_to_bfloat16(f);
  } else if constexpr (std::is_same_v<D, Float4E2M1>) {
    return D(f, true);  // float4 has no inf/NaN: always saturates
  } else {
    return D(f, saturate);
  }
}

// A number as float32, ready to be rounded once more into a narrower float type.
template <class S>
inline float to_float_for_narrowing(const S& v) {
  if constexpr (std::is_same_v<S, float>) {
    return v;
  } else if constexpr (is_small_int_v<S>) {
    return static_cast<float>(static_cast<int>(v));
  } else if constexpr (is_small_float_v<S>) {
    return static_cast<float>(v);
  } else if constexpr (sizeof(S) <= 2) {
    return static_cast<float>(v);  // exact
  } else {
    return round_to_odd_float(static_cast<double>(v));
  }
}

// One element of type S converted to type D (numeric types and bool; not string or complex).
template <class D, class S>
inline D convert_element(const S& v, bool saturate) {
  if constexpr (std::is_same_v<S, D>) {
    return v;
  } else if constexpr (std::is_same_v<D, bool>) {
    if constexpr (is_small_float_v<S>) {
      return static_cast<float>(v) != 0.0f;
    } else if constexpr (is_small_int_v<S>) {
      return static_cast<int>(v) != 0;
    } else {
      return v != S(0);
    }
  } else if constexpr (std::is_same_v<S, bool>) {
    return convert_element<D>(static_cast<uint8_t>(v ? 1 : 0), saturate);
  } else if constexpr (is_small_int_v<S>) {
    return convert_element<D>(static_cast<int8_t>(static_cast<int>(v)), saturate);
  } else if constexpr (std::is_floating_point_v<D>) {
    if constexpr (std::is_same_v<S, Float16>) {
      return static_cast<D>(half_to_float(v));
    } else if constexpr (is_small_float_v<S>) {
      return static_cast<D>(static_cast<float>(v));
    } else {
      return static_cast<D>(v);
    }
  } else if constexpr (is_small_float_v<D>) {
    return make_small_float<D>(to_float_for_narrowing(v), saturate);
  } else if constexpr (is_small_int_v<D>) {
    int64_t i;
    if constexpr (is_float_like_v<S>) {
      i = float_to_int64_x86(to_double(v));
    } else {
      i = static_cast<int64_t>(v);
    }
    return D(static_cast<int>(i & 0xFF));
  } else if constexpr (is_float_like_v<S>) {
    return float_to_int<D>(to_double(v));
  } else {
    return static_cast<D>(v);  // integer to integer: modular since C++20
  }
}

}  // namespace kiln::cpu
