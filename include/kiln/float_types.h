// Storage types for the element types that C++ has no built-in type for: half and bfloat16, the
// ONNX float8 variants, float4e2m1 and the 4- and 2-bit integers.
//
// kiln stores every element in at least one byte: int4/uint4/int2/uint2/float4e2m1 tensors hold
// one element per byte in memory (sign-extended for the signed ones) and are packed only when
// written to or read from an ONNX file. Kernels can therefore index them like any other type.
#pragma once

#include <cstdint>

#include "kiln/export.h"

namespace kiln {

// Conversions follow the ONNX spec (onnx/docs/Operators.md, Cast): round to nearest even;
// `saturate` clamps out-of-range values, +-inf included, to the largest finite value of the
// target (E5M2 too, although it has an infinity); without it they become inf where the target
// has one and NaN otherwise. float4e2m1 always saturates. Float8E8M0 rounds up (ONNX's default
// round_mode); see float_types.cpp for the special values of each type.
struct KILN_API Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f);
  explicit operator float() const;
  static Float16 from_bits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
};

struct KILN_API BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f);
  explicit operator float() const;
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

#define KILN_DECLARE_BYTE_FLOAT(Name)             \
  struct KILN_API Name {                          \
    uint8_t bits = 0;                             \
    Name() = default;                             \
    explicit Name(float f, bool saturate = true); \
    explicit operator float() const;              \
    static Name from_bits(uint8_t b) {            \
      Name v;                                     \
      v.bits = b;                                 \
      return v;                                   \
    }                                             \
  };

KILN_DECLARE_BYTE_FLOAT(Float8E4M3FN)    // 1-4-3, no inf, NaN = S.1111.111
KILN_DECLARE_BYTE_FLOAT(Float8E4M3FNUZ)  // 1-4-3, bias 8, no inf, no -0, NaN = 0x80
KILN_DECLARE_BYTE_FLOAT(Float8E5M2)      // 1-5-2, IEEE-like with inf
KILN_DECLARE_BYTE_FLOAT(Float8E5M2FNUZ)  // 1-5-2, bias 16, no inf, no -0, NaN = 0x80
KILN_DECLARE_BYTE_FLOAT(Float8E8M0)      // exponent only (scale type), NaN = 0xFF
KILN_DECLARE_BYTE_FLOAT(Float4E2M1)      // 1-2-1 in the low 4 bits, no inf, no NaN
#undef KILN_DECLARE_BYTE_FLOAT

// Small integers, one per byte; the value is always kept in range. The constructors keep the
// low 4 (or 2) bits of an out-of-range value, two's complement for the signed types, which is
// ONNX's "truncating" for casts to these types (Int4(9) == -7, UInt4(17) == 1).
struct Int4 {
  int8_t value = 0;
  Int4() = default;
  explicit Int4(int v) : value(static_cast<int8_t>(((v & 0xF) ^ 0x8) - 0x8)) {}
  explicit operator int() const { return value; }
};
struct UInt4 {
  uint8_t value = 0;
  UInt4() = default;
  explicit UInt4(int v) : value(static_cast<uint8_t>(v & 0xF)) {}
  explicit operator int() const { return value; }
};
struct Int2 {
  int8_t value = 0;
  Int2() = default;
  explicit Int2(int v) : value(static_cast<int8_t>(((v & 0x3) ^ 0x2) - 0x2)) {}
  explicit operator int() const { return value; }
};
struct UInt2 {
  uint8_t value = 0;
  UInt2() = default;
  explicit UInt2(int v) : value(static_cast<uint8_t>(v & 0x3)) {}
  explicit operator int() const { return value; }
};

}  // namespace kiln
