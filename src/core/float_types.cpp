// Conversions between float and the storage types of float_types.h.
//
// Every narrowing conversion rounds to nearest, ties to even, on the exact value of the input.
// Special values follow the tables of the ONNX Cast operator (onnx/docs/Operators.md, Cast, and
// the technical notes on float8 and float4):
//
//   input        E4M3FN      E4M3FNUZ    E5M2        E5M2FNUZ    E2M1 (float4)
//   NaN          +-NaN       NaN (0x80)  +-NaN       NaN (0x80)  +6
//   +-Inf, sat   +-max       +-max       +-max       +-max       +-6
//   +-Inf, !sat  +-NaN       NaN         +-Inf       NaN         +-6
//   [x] > max    as Inf      as Inf      as Inf      as Inf      as Inf
//   -0           -0          +0          -0          +0          -0
//
// "[x] > max" means the value after rounding with an unbounded exponent, so an input that rounds
// down to max stays finite even without saturation (464 -> 448 in E4M3FN).
//
// float4e2m1 has neither infinity nor NaN, so it always saturates: ONNX's `saturate` attribute
// applies only to the float8 types, and its float4 table maps every NaN to +6 whatever its sign.
//
// Float8E8M0 is a power-of-two scale with no sign and no zero. ONNX's Cast rounds to it with the
// `round_mode` attribute, whose default is "up" (towards +inf for the positive values the type
// can hold); kiln's constructor implements that default:
//   - a value that is not an exact power of two rounds up to the next one;
//   - 0 and anything up to 2^-127 become 2^-127 (0x00), the smallest value the type has;
//   - NaN becomes NaN (0xFF);
//   - +Inf and values above 2^127 become 2^127 (0xFE) with saturation, NaN without it, as in the
//     Cast table for E8M0;
//   - negative inputs are unspecified by ONNX; kiln converts their magnitude, as ONNX's reference
//     implementation does.
#include "kiln/float_types.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace kiln {
namespace {

constexpr uint32_t kSignMask = 0x80000000u;
constexpr uint32_t kAbsMask = 0x7FFFFFFFu;
constexpr uint32_t kFloatInf = 0x7F800000u;
constexpr uint32_t kFloatQuietNan = 0x7FC00000u;

// How a narrow format spells the values that are not finite numbers.
enum class Specials : uint8_t {
  kIeee,          // exponent all ones: Inf (mantissa 0) or NaN (E5M2, float16)
  kAllOnesIsNan,  // magnitude all ones is NaN, no Inf (E4M3FN)
  kUnsignedZero,  // the negative-zero pattern is the only NaN, no Inf (the FNUZ types)
  kNone,          // every pattern is a finite number (E2M1)
};

// A sign-magnitude binary float format narrower than float32. Codes are laid out as
// sign | exponent | mantissa, with exponent 0 holding zero and the subnormals.
struct NarrowFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;

  constexpr uint32_t sign_bit() const { return 1u << (exponent_bits + mantissa_bits); }
  constexpr uint32_t magnitude_mask() const { return sign_bit() - 1; }
  constexpr uint32_t mantissa_mask() const { return (1u << mantissa_bits) - 1; }
  constexpr uint32_t exponent_all_ones() const { return (1u << exponent_bits) - 1; }
  // The magnitude code of the largest finite value.
  constexpr uint32_t max_code() const {
    switch (specials) {
      case Specials::kIeee:
        return ((exponent_all_ones() - 1) << mantissa_bits) | mantissa_mask();
      case Specials::kAllOnesIsNan:
        return magnitude_mask() - 1;
      case Specials::kUnsignedZero:
      case Specials::kNone:
        return magnitude_mask();
    }
    return 0;
  }
};

constexpr NarrowFormat kE4M3FN{4, 3, 7, Specials::kAllOnesIsNan};
constexpr NarrowFormat kE4M3FNUZ{4, 3, 8, Specials::kUnsignedZero};
constexpr NarrowFormat kE5M2{5, 2, 15, Specials::kIeee};
constexpr NarrowFormat kE5M2FNUZ{5, 2, 16, Specials::kUnsignedZero};
constexpr NarrowFormat kE2M1{2, 1, 1, Specials::kNone};
constexpr NarrowFormat kHalf{5, 10, 15, Specials::kIeee};

// Rounds the finite, non-negative float whose bits are `abs_bits` to the nearest magnitude code
// of a format with the given mantissa width and bias, ties to even. The exponent range is not
// bounded above: a result past the format's largest code means overflow, which the caller
// resolves. Working on codes is what makes this simple: consecutive codes are consecutive
// values, so a mantissa that rounds up to 2^(mantissa_bits) carries into the exponent, and a
// subnormal that rounds up to the smallest normal does too.
constexpr uint32_t round_to_code(uint32_t abs_bits, int mantissa_bits, int bias) {
  const int float_exponent = static_cast<int>(abs_bits >> 23);
  const uint32_t fraction = abs_bits & 0x7FFFFFu;
  // The value is significand * 2^lsb_exponent.
  const uint32_t significand = float_exponent == 0 ? fraction : (fraction | 0x800000u);
  const int lsb_exponent = float_exponent == 0 ? -149 : float_exponent - 150;
  // Unbiased exponent of the target binade; values below the smallest normal share the
  // subnormal quantum. Float subnormals (exponent field 0) are far below every target's normals.
  const int min_exponent = 1 - bias;
  const int exponent = float_exponent - 127 > min_exponent ? float_exponent - 127 : min_exponent;
  // The target's quantum in this binade is 2^(exponent - mantissa_bits); the shift that brings
  // the significand to it is positive for every format here (at most 10 mantissa bits).
  const int shift = exponent - mantissa_bits - lsb_exponent;
  uint32_t quotient = 0;
  if (shift < 25) {  // from 25 on the value is below half a quantum: it rounds to 0
    quotient = significand >> shift;
    const uint32_t remainder = significand & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (remainder > half || (remainder == half && (quotient & 1u))) ++quotient;
  }
  return (static_cast<uint32_t>(exponent - min_exponent) << mantissa_bits) + quotient;
}

template <NarrowFormat F>
uint32_t encode_narrow(float f, bool saturate) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (bits & kSignMask) ? F.sign_bit() : 0;
  const uint32_t abs_bits = bits & kAbsMask;
  if (abs_bits > kFloatInf) {  // NaN
    switch (F.specials) {
      case Specials::kIeee:  // the canonical quiet NaN: top mantissa bit set
        return sign | (F.exponent_all_ones() << F.mantissa_bits) | (1u << (F.mantissa_bits - 1));
      case Specials::kAllOnesIsNan:
        return sign | F.magnitude_mask();
      case Specials::kUnsignedZero:
        return F.sign_bit();
      case Specials::kNone:
        return F.max_code();  // ONNX: NaN -> +max for float4, whatever the sign
    }
  }
  // Infinity takes the overflow path below, which is exactly what the Cast tables ask of it.
  const uint32_t code =
      abs_bits == kFloatInf ? F.max_code() + 1 : round_to_code(abs_bits, F.mantissa_bits, F.bias);
  if (code > F.max_code()) {
    if (saturate || F.specials == Specials::kNone) return sign | F.max_code();
    switch (F.specials) {
      case Specials::kIeee:
        return sign | (F.exponent_all_ones() << F.mantissa_bits);
      case Specials::kAllOnesIsNan:
        return sign | F.magnitude_mask();
      case Specials::kUnsignedZero:
      case Specials::kNone:
        return F.sign_bit();
    }
  }
  // The FNUZ types have one zero; their negative-zero pattern is NaN.
  if (code == 0 && F.specials == Specials::kUnsignedZero) return 0;
  return sign | code;
}

// The float32 bits of a code of format F. Every value of the narrow formats is a normal float.
template <NarrowFormat F>
constexpr uint32_t decode_narrow(uint32_t code) {
  const uint32_t sign = (code & F.sign_bit()) ? kSignMask : 0;
  const uint32_t magnitude = code & F.magnitude_mask();
  const uint32_t exponent = magnitude >> F.mantissa_bits;
  const uint32_t mantissa = magnitude & F.mantissa_mask();
  switch (F.specials) {
    case Specials::kIeee:
      if (exponent == F.exponent_all_ones()) return sign | (mantissa ? kFloatQuietNan : kFloatInf);
      break;
    case Specials::kAllOnesIsNan:
      if (magnitude == F.magnitude_mask()) return sign | kFloatQuietNan;
      break;
    case Specials::kUnsignedZero:
      if (code == F.sign_bit()) return kFloatQuietNan;
      break;
    case Specials::kNone:
      break;
  }
  if (exponent == 0) {
    if (mantissa == 0) return sign;
    // Subnormal: mantissa * 2^(1 - bias - mantissa_bits); normalise on its leading bit.
    const int lead = std::bit_width(mantissa) - 1;
    const uint32_t float_exponent =
        static_cast<uint32_t>(lead + 1 - F.bias - F.mantissa_bits + 127);
    const uint32_t fraction = (mantissa ^ (1u << lead)) << (23 - lead);
    return sign | (float_exponent << 23) | fraction;
  }
  const uint32_t float_exponent = static_cast<uint32_t>(static_cast<int>(exponent) - F.bias + 127);
  return sign | (float_exponent << 23) | (mantissa << (23 - F.mantissa_bits));
}

template <NarrowFormat F, size_t N>
constexpr std::array<uint32_t, N> make_decode_table() {
  std::array<uint32_t, N> table{};
  for (uint32_t code = 0; code < N; ++code) table[code] = decode_narrow<F>(code);
  return table;
}

// Decoding an 8-bit float is a table lookup: the tables are built at compile time.
constexpr auto kE4M3FNTable = make_decode_table<kE4M3FN, 256>();
constexpr auto kE4M3FNUZTable = make_decode_table<kE4M3FNUZ, 256>();
constexpr auto kE5M2Table = make_decode_table<kE5M2, 256>();
constexpr auto kE5M2FNUZTable = make_decode_table<kE5M2FNUZ, 256>();
constexpr auto kE2M1Table = make_decode_table<kE2M1, 16>();

static_assert(kE4M3FNTable[0x7E] == 0x43E00000u);    // 448
static_assert(kE4M3FNUZTable[0x7F] == 0x43700000u);  // 240
static_assert(kE5M2Table[0x7B] == 0x47600000u);      // 57344
static_assert(kE5M2FNUZTable[0x7F] == 0x47600000u);  // 57344
static_assert(kE2M1Table[0x7] == 0x40C00000u);       // 6

}  // namespace

// ---- Float16 -------------------------------------------------------------------------------

Float16::Float16(float f) {
  const uint32_t in = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (in & kSignMask) >> 16;
  const uint32_t abs_bits = in & kAbsMask;
  if (abs_bits > kFloatInf) {
    // Keep the top of the payload and force the quiet bit, so that a NaN whose payload lives
    // only in the low bits does not turn into infinity.
    bits = static_cast<uint16_t>(sign | 0x7E00u | ((abs_bits >> 13) & 0x3FFu));
    return;
  }
  const uint32_t code =
      abs_bits == kFloatInf ? 0x7C00u : round_to_code(abs_bits, kHalf.mantissa_bits, kHalf.bias);
  // IEEE rounding overflows to infinity; there is no saturating mode for float16.
  bits = static_cast<uint16_t>(sign | (code > kHalf.max_code() ? 0x7C00u : code));
}

Float16::operator float() const {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) {
    // Infinity, or NaN with its payload kept in the top of the float's mantissa.
    return std::bit_cast<float>(sign | kFloatInf | (mantissa << 13));
  }
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    const int lead = std::bit_width(mantissa) - 1;
    const uint32_t float_exponent = static_cast<uint32_t>(lead - 24 + 127);
    return std::bit_cast<float>(sign | (float_exponent << 23) |
                                ((mantissa ^ (1u << lead)) << (23 - lead)));
  }
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

// ---- BFloat16 ------------------------------------------------------------------------------

BFloat16::BFloat16(float f) {
  const uint32_t in = std::bit_cast<uint32_t>(f);
  if ((in & kAbsMask) > kFloatInf) {
    // Truncating a NaN could leave an all-zero mantissa (infinity); setting the quiet bit keeps
    // it a NaN with its sign and the top of its payload.
    bits = static_cast<uint16_t>((in >> 16) | 0x0040u);
    return;
  }
  // Round to nearest even on the 16 discarded bits; a carry out of the mantissa moves to the
  // exponent, and past the largest finite value it lands exactly on infinity.
  const uint32_t rounding_bias = 0x7FFFu + ((in >> 16) & 1u);
  bits = static_cast<uint16_t>((in + rounding_bias) >> 16);
}

BFloat16::operator float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// ---- 8-bit floats --------------------------------------------------------------------------

Float8E4M3FN::Float8E4M3FN(float f, bool saturate)
    : bits(static_cast<uint8_t>(encode_narrow<kE4M3FN>(f, saturate))) {}
Float8E4M3FN::operator float() const { return std::bit_cast<float>(kE4M3FNTable[bits]); }

Float8E4M3FNUZ::Float8E4M3FNUZ(float f, bool saturate)
    : bits(static_cast<uint8_t>(encode_narrow<kE4M3FNUZ>(f, saturate))) {}
Float8E4M3FNUZ::operator float() const { return std::bit_cast<float>(kE4M3FNUZTable[bits]); }

Float8E5M2::Float8E5M2(float f, bool saturate)
    : bits(static_cast<uint8_t>(encode_narrow<kE5M2>(f, saturate))) {}
Float8E5M2::operator float() const { return std::bit_cast<float>(kE5M2Table[bits]); }

Float8E5M2FNUZ::Float8E5M2FNUZ(float f, bool saturate)
    : bits(static_cast<uint8_t>(encode_narrow<kE5M2FNUZ>(f, saturate))) {}
Float8E5M2FNUZ::operator float() const { return std::bit_cast<float>(kE5M2FNUZTable[bits]); }

Float8E8M0::Float8E8M0(float f, bool saturate) {
  // E8M0's code is a float32 exponent field: code e stands for 2^(e - 127), 0xFF is NaN.
  const uint32_t abs_bits = std::bit_cast<uint32_t>(f) & kAbsMask;  // the sign is ignored
  if (abs_bits > kFloatInf) {
    bits = 0xFF;
  } else if (abs_bits == kFloatInf) {
    bits = saturate ? 0xFE : 0xFF;
  } else if (abs_bits <= 0x00400000u) {
    bits = 0x00;  // 0 up to 2^-127 rounds up to 2^-127
  } else if (abs_bits < 0x00800000u) {
    bits = 0x01;  // the rest of the float subnormals round up to 2^-126
  } else {
    const uint32_t exponent = abs_bits >> 23;
    const uint32_t rounded = exponent + ((abs_bits & 0x7FFFFFu) != 0 ? 1u : 0u);
    // Only values above 2^127 reach 0xFF here: they do not fit.
    bits = static_cast<uint8_t>(rounded == 0xFF && saturate ? 0xFE : rounded);
  }
}

Float8E8M0::operator float() const {
  if (bits == 0xFF) return std::bit_cast<float>(kFloatQuietNan);
  if (bits == 0x00) return std::bit_cast<float>(0x00400000u);  // 2^-127, a float subnormal
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 23);
}

// ---- float4 --------------------------------------------------------------------------------

// `saturate` is accepted for a uniform interface but has no effect: the type has no infinity or
// NaN to overflow to, and ONNX's float4 table saturates every out-of-range input.
Float4E2M1::Float4E2M1(float f, bool /*saturate*/)
    : bits(static_cast<uint8_t>(encode_narrow<kE2M1>(f, true))) {}
Float4E2M1::operator float() const { return std::bit_cast<float>(kE2M1Table[bits & 0x0Fu]); }

}  // namespace kiln
