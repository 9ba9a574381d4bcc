// Tests for the narrow float storage types, DataType properties and sub-byte packing.
//
// The rounding checks do not reuse the library's algorithm: they compare it with a brute-force
// oracle that lists every value a format can hold (computed from the ONNX formulas with
// std::ldexp), finds the nearest one by search and breaks ties towards the even code.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/packed_bits.h"
#include "kiln/dtype.h"
#include "kiln/error.h"
#include "kiln/float_types.h"

namespace kiln {
namespace {

float from_bits32(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t bits32(float f) { return std::bit_cast<uint32_t>(f); }

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

// ---- An independent model of the narrow formats --------------------------------------------

enum class Kind { kIeee, kFn, kFnuz, kNoSpecials };

struct Format {
  std::string name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Kind kind;
  uint32_t max_code;  // magnitude code of the largest finite value
  std::function<uint32_t(float, bool)> encode;
  std::function<float(uint32_t)> decode;

  uint32_t sign_bit() const { return 1u << (exponent_bits + mantissa_bits); }
  uint32_t code_count() const { return sign_bit() << 1; }

  // The value of a magnitude code by the ONNX formula (valid for finite codes only).
  double value(uint32_t magnitude) const {
    const uint32_t e = magnitude >> mantissa_bits;
    const uint32_t m = magnitude & ((1u << mantissa_bits) - 1);
    if (e == 0) return std::ldexp(static_cast<double>(m), 1 - bias - mantissa_bits);
    return std::ldexp(static_cast<double>((1u << mantissa_bits) + m),
                      static_cast<int>(e) - bias - mantissa_bits);
  }

  bool is_nan_code(uint32_t code) const {
    const uint32_t mag = code & (sign_bit() - 1);
    switch (kind) {
      case Kind::kIeee:
        return (mag >> mantissa_bits) == (1u << exponent_bits) - 1 &&
               (mag & ((1u << mantissa_bits) - 1)) != 0;
      case Kind::kFn:
        return mag == sign_bit() - 1;
      case Kind::kFnuz:
        return code == sign_bit();
      case Kind::kNoSpecials:
        return false;
    }
    return false;
  }
  bool is_inf_code(uint32_t code) const {
    return kind == Kind::kIeee && (code & (sign_bit() - 1)) == max_code + 1;
  }

  // Magnitudes 0..max_code, then the value one step past max_code (the next value the format
  // would have with an unbounded exponent): reaching it means overflow.
  std::vector<double> magnitudes() const {
    std::vector<double> v;
    for (uint32_t c = 0; c <= max_code + 1; ++c) v.push_back(value(c));
    return v;
  }
};

std::vector<Format> float8_formats() {
  return {
      {"E4M3FN", 4, 3, 7, Kind::kFn, 0x7E,
       [](float f, bool s) { return uint32_t{Float8E4M3FN(f, s).bits}; },
       [](uint32_t b) { return float(Float8E4M3FN::from_bits(static_cast<uint8_t>(b))); }},
      {"E4M3FNUZ", 4, 3, 8, Kind::kFnuz, 0x7F,
       [](float f, bool s) { return uint32_t{Float8E4M3FNUZ(f, s).bits}; },
       [](uint32_t b) { return float(Float8E4M3FNUZ::from_bits(static_cast<uint8_t>(b))); }},
      {"E5M2", 5, 2, 15, Kind::kIeee, 0x7B,
       [](float f, bool s) { return uint32_t{Float8E5M2(f, s).bits}; },
       [](uint32_t b) { return float(Float8E5M2::from_bits(static_cast<uint8_t>(b))); }},
      {"E5M2FNUZ", 5, 2, 16, Kind::kFnuz, 0x7F,
       [](float f, bool s) { return uint32_t{Float8E5M2FNUZ(f, s).bits}; },
       [](uint32_t b) { return float(Float8E5M2FNUZ::from_bits(static_cast<uint8_t>(b))); }},
  };
}

Format float4_format() {
  return {"E2M1",
          2,
          1,
          1,
          Kind::kNoSpecials,
          0x7,
          [](float f, bool s) { return uint32_t{Float4E2M1(f, s).bits}; },
          [](uint32_t b) { return float(Float4E2M1::from_bits(static_cast<uint8_t>(b))); }};
}

Format float16_format() {
  return {"float16",
          5,
          10,
          15,
          Kind::kIeee,
          0x7BFF,
          [](float f, bool) { return uint32_t{Float16(f).bits}; },
          [](uint32_t b) { return float(Float16::from_bits(static_cast<uint16_t>(b))); }};
}

Format bfloat16_format() {
  return {"bfloat16",
          8,
          7,
          127,
          Kind::kIeee,
          0x7F7F,
          [](float f, bool) { return uint32_t{BFloat16(f).bits}; },
          [](uint32_t b) { return float(BFloat16::from_bits(static_cast<uint16_t>(b))); }};
}

// Nearest magnitude code to `a` (finite, >= 0), ties to the even code; mags.size() - 1 means
// the value rounds past the largest finite one.
uint32_t nearest_code(const std::vector<double>& mags, double a) {
  const uint32_t overflow = static_cast<uint32_t>(mags.size() - 1);
  if (a >= mags.back()) return overflow;
  const auto it = std::upper_bound(mags.begin(), mags.end(), a);
  const uint32_t lo = static_cast<uint32_t>(it - mags.begin() - 1);
  if (a == mags[lo]) return lo;
  const double mid = (mags[lo] + mags[lo + 1]) / 2;  // exact: both have few significant bits
  if (a < mid) return lo;
  if (a > mid) return lo + 1;
  return (lo % 2 == 0) ? lo : lo + 1;
}

// What ONNX's Cast tables say `x` becomes in format `f` (float16/bfloat16 follow IEEE).
uint32_t expected_code(const Format& f, const std::vector<double>& mags, float x, bool saturate) {
  const uint32_t sign = std::signbit(x) ? f.sign_bit() : 0;
  const uint32_t all_ones = f.sign_bit() - 1;
  if (std::isnan(x)) {
    switch (f.kind) {
      case Kind::kIeee:  // the library returns the canonical quiet NaN; checked separately
        return sign | (f.max_code + 1) | (1u << (f.mantissa_bits - 1));
      case Kind::kFn:
        return sign | all_ones;
      case Kind::kFnuz:
        return f.sign_bit();
      case Kind::kNoSpecials:
        return f.max_code;  // +6 for float4
    }
  }
  const uint32_t code = std::isinf(x) ? f.max_code + 1 : nearest_code(mags, std::fabs(x));
  if (code > f.max_code) {
    if (saturate || f.kind == Kind::kNoSpecials) return sign | f.max_code;
    switch (f.kind) {
      case Kind::kIeee:
        return sign | (f.max_code + 1);  // infinity
      case Kind::kFn:
        return sign | all_ones;
      default:
        return f.sign_bit();
    }
  }
  if (code == 0 && f.kind == Kind::kFnuz) return 0;
  return sign | code;
}

// Inputs that stress rounding: every representable magnitude, every midpoint between two
// neighbours and the floats just either side of both, with both signs.
std::vector<float> critical_inputs(const std::vector<double>& mags) {
  std::vector<float> out;
  auto add = [&out](double d) {
    if (d > std::numeric_limits<float>::max()) return;
    const float f = static_cast<float>(d);
    for (float v : {f, std::nextafter(f, -kInf), std::nextafter(f, kInf)}) {
      out.push_back(v);
      out.push_back(-v);
    }
  };
  for (size_t i = 0; i + 1 < mags.size(); ++i) {
    add(mags[i]);
    add((mags[i] + mags[i + 1]) / 2);
  }
  add(mags.back());
  return out;
}

void check_against_oracle(const Format& f, bool saturate, uint32_t stride) {
  const std::vector<double> mags = f.magnitudes();
  int failures = 0;
  auto check_one = [&](float x) {
    if (std::isnan(x)) return;  // NaN is covered by its own tests
    const uint32_t got = f.encode(x, saturate);
    const uint32_t want = expected_code(f, mags, x, saturate);
    if (got != want && ++failures <= 10) {
      ADD_FAILURE() << f.name << " saturate=" << saturate << " x=" << x << " (0x" << std::hex
                    << bits32(x) << ") got 0x" << got << " want 0x" << want;
    }
  };
  for (float x : critical_inputs(mags)) check_one(x);
  for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += stride)
    check_one(from_bits32(static_cast<uint32_t>(b)));
  for (float x : {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::min()}) {
    check_one(x);
  }
  EXPECT_EQ(failures, 0) << f.name;
}

// ---- float8 ---------------------------------------------------------------------------------

TEST(Float8, DecodeMatchesOnnxFormulaForAllCodes) {
  for (const Format& f : float8_formats()) {
    for (uint32_t code = 0; code < 256; ++code) {
      const float got = f.decode(code);
      if (f.is_nan_code(code)) {
        EXPECT_TRUE(std::isnan(got)) << f.name << " code " << code;
        if (f.kind != Kind::kFnuz) {
          EXPECT_EQ(std::signbit(got), (code & 0x80) != 0);
        }
        continue;
      }
      if (f.is_inf_code(code)) {
        EXPECT_EQ(got, (code & 0x80) ? -kInf : kInf) << f.name << " code " << code;
        continue;
      }
      const double mag = f.value(code & 0x7F);
      const bool negative = (code & 0x80) != 0;
      EXPECT_EQ(static_cast<double>(got), negative ? -mag : mag) << f.name << " code " << code;
      EXPECT_EQ(std::signbit(got), negative) << f.name << " code " << code;
    }
  }
}

TEST(Float8, NanAndInfinityCodesAreExactlyTheDocumentedOnes) {
  auto nan_count = [](const Format& f) {
    int n = 0;
    for (uint32_t c = 0; c < 256; ++c) n += std::isnan(f.decode(c)) ? 1 : 0;
    return n;
  };
  const auto formats = float8_formats();
  EXPECT_EQ(nan_count(formats[0]), 2);  // E4M3FN: S.1111.111
  EXPECT_EQ(nan_count(formats[1]), 1);  // E4M3FNUZ: 0x80
  EXPECT_EQ(nan_count(formats[2]), 6);  // E5M2: S.11111.{01,10,11}
  EXPECT_EQ(nan_count(formats[3]), 1);  // E5M2FNUZ: 0x80
  for (uint32_t c = 0; c < 256; ++c) {
    EXPECT_FALSE(std::isinf(formats[0].decode(c)));
    EXPECT_FALSE(std::isinf(formats[1].decode(c)));
    EXPECT_FALSE(std::isinf(formats[3].decode(c)));
  }
  EXPECT_TRUE(std::isinf(formats[2].decode(0x7C)));
  EXPECT_TRUE(std::isinf(formats[2].decode(0xFC)));
}

TEST(Float8, AllBitPatternsRoundTrip) {
  for (const Format& f : float8_formats()) {
    for (uint32_t code = 0; code < 256; ++code) {
      const float value = f.decode(code);
      for (bool saturate : {true, false}) {
        const uint32_t back = f.encode(value, saturate);
        if (f.is_nan_code(code)) {
          // NaNs come back as the format's canonical NaN with the same sign (E5M2 has three).
          EXPECT_TRUE(f.is_nan_code(back)) << f.name << " code " << code;
          EXPECT_EQ(back & 0x80, code & 0x80) << f.name << " code " << code;
        } else if (f.is_inf_code(code) && saturate) {
          // The Cast table maps infinity to the largest finite value under saturation.
          EXPECT_EQ(back, (code & 0x80) | f.max_code) << f.name << " code " << code;
        } else {
          EXPECT_EQ(back, code) << f.name << " code " << code << " saturate " << saturate;
        }
      }
    }
  }
}

TEST(Float8, RoundingMatchesBruteForceOracle) {
  for (const Format& f : float8_formats()) {
    check_against_oracle(f, /*saturate=*/true, 4093);
    check_against_oracle(f, /*saturate=*/false, 4093);
  }
}

TEST(Float8E4M3FN, KnownValues) {
  auto enc = [](float x, bool sat = true) { return Float8E4M3FN(x, sat).bits; };
  auto dec = [](uint8_t b) { return float(Float8E4M3FN::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x38);
  EXPECT_EQ(enc(-1.0f), 0xB8);
  EXPECT_EQ(enc(448.0f), 0x7E);
  EXPECT_EQ(dec(0x7E), 448.0f);
  EXPECT_EQ(dec(0xFE), -448.0f);
  EXPECT_EQ(dec(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(dec(0x08), std::ldexp(1.0f, -6));  // smallest normal
  EXPECT_EQ(enc(std::ldexp(1.0f, -9)), 0x01);
  EXPECT_EQ(enc(std::ldexp(1.0f, -10)), 0x00);   // tie between 0 and 2^-9: even is 0
  EXPECT_EQ(enc(std::ldexp(3.0f, -11)), 0x01);   // 0.75 of the smallest subnormal
  EXPECT_EQ(enc(std::ldexp(3.0f, -10)), 0x02);   // 1.5 of it: tie, even is 2
  EXPECT_EQ(enc(std::ldexp(1.0f, -11)), 0x00);   // below half the smallest subnormal
  EXPECT_EQ(enc(-std::ldexp(1.0f, -11)), 0x80);  // keeps its sign: -0
  EXPECT_EQ(enc(17.0f), 0x58);                   // tie between 16 and 18: 16
  EXPECT_EQ(enc(19.0f), 0x5A);                   // tie between 18 and 20: 20
  EXPECT_EQ(enc(0.0f), 0x00);
  EXPECT_EQ(enc(-0.0f), 0x80);
  // Out of range: saturate to +-448, or NaN without saturation (no infinity in E4M3FN).
  EXPECT_EQ(enc(1e6f), 0x7E);
  EXPECT_EQ(enc(-1e6f), 0xFE);
  EXPECT_EQ(enc(1e6f, false), 0x7F);
  EXPECT_EQ(enc(-1e6f, false), 0xFF);
  EXPECT_EQ(enc(464.0f, false), 0x7E);  // rounds (ties to even) down to 448: still finite
  EXPECT_EQ(enc(std::nextafter(464.0f, kInf), false), 0x7F);
  EXPECT_EQ(enc(kInf), 0x7E);
  EXPECT_EQ(enc(-kInf), 0xFE);
  EXPECT_EQ(enc(kInf, false), 0x7F);
  EXPECT_EQ(enc(-kInf, false), 0xFF);
  EXPECT_EQ(enc(kNan), 0x7F);
  EXPECT_EQ(enc(-kNan), 0xFF);
  EXPECT_EQ(enc(kNan, false), 0x7F);
  EXPECT_EQ(enc(from_bits32(0x7F800001u)), 0x7F);  // signalling NaN is NaN too
  EXPECT_EQ(enc(std::numeric_limits<float>::denorm_min()), 0x00);
}

TEST(Float8E4M3FNUZ, KnownValues) {
  auto enc = [](float x, bool sat = true) { return Float8E4M3FNUZ(x, sat).bits; };
  auto dec = [](uint8_t b) { return float(Float8E4M3FNUZ::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x40);
  EXPECT_EQ(enc(-1.0f), 0xC0);
  EXPECT_EQ(enc(240.0f), 0x7F);
  EXPECT_EQ(dec(0x7F), 240.0f);
  EXPECT_EQ(dec(0xFF), -240.0f);
  EXPECT_EQ(dec(0x01), std::ldexp(1.0f, -10));
  EXPECT_TRUE(std::isnan(dec(0x80)));
  EXPECT_EQ(enc(-0.0f), 0x00);                   // no negative zero
  EXPECT_EQ(enc(-std::ldexp(1.0f, -12)), 0x00);  // negative underflow is +0, not NaN
  EXPECT_EQ(enc(std::ldexp(1.0f, -11)), 0x00);   // tie: even
  EXPECT_EQ(enc(kNan), 0x80);
  EXPECT_EQ(enc(-kNan), 0x80);
  EXPECT_EQ(enc(1e6f), 0x7F);
  EXPECT_EQ(enc(-1e6f), 0xFF);
  EXPECT_EQ(enc(1e6f, false), 0x80);
  EXPECT_EQ(enc(-1e6f, false), 0x80);
  EXPECT_EQ(enc(kInf), 0x7F);  // the Cast table: Inf -> FLT_MAX with saturation
  EXPECT_EQ(enc(-kInf), 0xFF);
  EXPECT_EQ(enc(kInf, false), 0x80);
  EXPECT_EQ(enc(-kInf, false), 0x80);
  EXPECT_EQ(enc(248.0f, false), 0x80);  // tie between 240 and 256: rounds to even, past max
  EXPECT_EQ(enc(std::nextafter(248.0f, 0.0f), false), 0x7F);
}

TEST(Float8E5M2, KnownValues) {
  auto enc = [](float x, bool sat = true) { return Float8E5M2(x, sat).bits; };
  auto dec = [](uint8_t b) { return float(Float8E5M2::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x3C);
  EXPECT_EQ(enc(57344.0f), 0x7B);
  EXPECT_EQ(dec(0x7B), 57344.0f);
  EXPECT_EQ(dec(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(dec(0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(dec(0x7C), kInf);
  EXPECT_EQ(dec(0xFC), -kInf);
  EXPECT_EQ(enc(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_EQ(enc(std::ldexp(1.0f, -17)), 0x00);  // tie: even
  EXPECT_EQ(enc(-0.0f), 0x80);
  EXPECT_EQ(enc(1.125f), 0x3C);  // tie between 1 and 1.25: 1
  EXPECT_EQ(enc(1.375f), 0x3E);  // tie between 1.25 and 1.5: 1.5
  EXPECT_EQ(enc(kInf), 0x7B);    // saturate maps infinity to the largest finite value
  EXPECT_EQ(enc(-kInf), 0xFB);
  EXPECT_EQ(enc(kInf, false), 0x7C);
  EXPECT_EQ(enc(-kInf, false), 0xFC);
  EXPECT_EQ(enc(1e6f), 0x7B);
  EXPECT_EQ(enc(1e6f, false), 0x7C);
  EXPECT_EQ(enc(-1e6f, false), 0xFC);
  EXPECT_EQ(enc(61440.0f, false), 0x7C);  // tie between 57344 and 65536: even is 65536, Inf
  EXPECT_EQ(enc(std::nextafter(61440.0f, 0.0f), false), 0x7B);
  EXPECT_EQ(enc(kNan), 0x7E);
  EXPECT_EQ(enc(-kNan), 0xFE);
}

TEST(Float8E5M2FNUZ, KnownValues) {
  auto enc = [](float x, bool sat = true) { return Float8E5M2FNUZ(x, sat).bits; };
  auto dec = [](uint8_t b) { return float(Float8E5M2FNUZ::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x40);
  EXPECT_EQ(enc(57344.0f), 0x7F);
  EXPECT_EQ(dec(0x7F), 57344.0f);
  EXPECT_EQ(dec(0x01), std::ldexp(1.0f, -17));
  EXPECT_TRUE(std::isnan(dec(0x80)));
  EXPECT_EQ(enc(-0.0f), 0x00);
  EXPECT_EQ(enc(kNan), 0x80);
  EXPECT_EQ(enc(1e6f), 0x7F);
  EXPECT_EQ(enc(-1e6f), 0xFF);
  EXPECT_EQ(enc(1e6f, false), 0x80);
  EXPECT_EQ(enc(kInf), 0x7F);
  EXPECT_EQ(enc(-kInf), 0xFF);
  EXPECT_EQ(enc(kInf, false), 0x80);
}

// Inputs of ONNX's Cast backend tests for float8, with saturation (the default).
TEST(Float8, OnnxCastTestInputs) {
  EXPECT_EQ(float(Float8E4M3FN(0.47892547f)), 0.46875f);
  EXPECT_EQ(float(Float8E4M3FN(0.7229038f)), 0.75f);
  EXPECT_EQ(float(Float8E5M2(0.47892547f)), 0.5f);
  EXPECT_EQ(float(Float8E4M3FN(1000000.0f)), 448.0f);
  EXPECT_EQ(float(Float8E4M3FNUZ(-1000000.0f)), -240.0f);
  EXPECT_EQ(float(Float8E5M2(1000000.0f)), 57344.0f);
  EXPECT_EQ(float(Float8E5M2FNUZ(-1000000.0f)), -57344.0f);
  // 1e-7 is far below every format's smallest subnormal.
  EXPECT_EQ(Float8E4M3FN(1e-7f).bits, 0x00);
  EXPECT_EQ(Float8E4M3FN(-1e-7f).bits, 0x80);
  EXPECT_EQ(Float8E5M2(-1e-7f).bits, 0x80);
  EXPECT_EQ(Float8E4M3FNUZ(-1e-7f).bits, 0x00);
  EXPECT_EQ(Float8E5M2FNUZ(-1e-7f).bits, 0x00);
}

// ---- E8M0 -----------------------------------------------------------------------------------

TEST(Float8E8M0, DecodeAllCodes) {
  for (uint32_t code = 0; code < 255; ++code) {
    EXPECT_EQ(float(Float8E8M0::from_bits(static_cast<uint8_t>(code))),
              std::ldexp(1.0f, static_cast<int>(code) - 127))
        << code;
  }
  EXPECT_TRUE(std::isnan(float(Float8E8M0::from_bits(0xFF))));
}

TEST(Float8E8M0, AllBitPatternsRoundTrip) {
  for (uint32_t code = 0; code < 256; ++code) {
    const float value = float(Float8E8M0::from_bits(static_cast<uint8_t>(code)));
    EXPECT_EQ(Float8E8M0(value).bits, code);
    EXPECT_EQ(Float8E8M0(value, false).bits, code);
  }
}

TEST(Float8E8M0, RoundsUp) {
  auto enc = [](float x, bool sat = true) { return Float8E8M0(x, sat).bits; };
  EXPECT_EQ(enc(1.0f), 0x7F);
  EXPECT_EQ(enc(1.1f), 0x80);                        // -> 2
  EXPECT_EQ(enc(std::nextafter(2.0f, 0.0f)), 0x80);  // just under 2 -> 2
  EXPECT_EQ(enc(std::nextafter(1.0f, 2.0f)), 0x80);  // just over 1 -> 2
  EXPECT_EQ(enc(0.124f), 0x7C);                      // -> 0.125
  EXPECT_EQ(enc(0.25f), 0x7D);
  EXPECT_EQ(enc(8.0f), 0x82);
  EXPECT_EQ(enc(0.0f), 0x00);  // 0 -> the smallest value, 2^-127
  EXPECT_EQ(enc(-0.0f), 0x00);
  EXPECT_EQ(enc(std::ldexp(1.0f, -127)), 0x00);
  EXPECT_EQ(enc(std::ldexp(1.0f, -130)), 0x00);
  EXPECT_EQ(enc(std::ldexp(1.5f, -127)), 0x01);  // -> 2^-126
  EXPECT_EQ(enc(std::ldexp(1.0f, -126)), 0x01);
  EXPECT_EQ(enc(std::ldexp(1.0f, 127)), 0xFE);
  EXPECT_EQ(enc(std::ldexp(1.5f, 127)), 0xFE);         // saturates to 2^127
  EXPECT_EQ(enc(std::ldexp(1.5f, 127), false), 0xFF);  // ... or becomes NaN
  EXPECT_EQ(enc(std::numeric_limits<float>::max()), 0xFE);
  EXPECT_EQ(enc(kInf), 0xFE);
  EXPECT_EQ(enc(kInf, false), 0xFF);
  EXPECT_EQ(enc(kNan), 0xFF);
  EXPECT_EQ(enc(kNan, false), 0xFF);
  EXPECT_EQ(enc(-4.0f), 0x81);  // negatives are unspecified by ONNX: kiln uses the magnitude
}

TEST(Float8E8M0, MatchesRoundUpOracle) {
  std::vector<double> powers;  // powers[e] = 2^(e - 127), the value of code e
  for (int e = 0; e < 255; ++e) powers.push_back(std::ldexp(1.0, e - 127));
  int failures = 0;
  for (uint64_t b = 0; b < 0x7F800000ull; b += 997) {
    const float x = from_bits32(static_cast<uint32_t>(b));
    // The smallest power of two >= x; past 2^127 there is none.
    const auto it = std::lower_bound(powers.begin(), powers.end(), static_cast<double>(x));
    const uint32_t want = static_cast<uint32_t>(it - powers.begin());  // 255 = 0xFF = NaN
    const uint32_t want_saturated = want == 0xFF ? 0xFE : want;
    if (Float8E8M0(x).bits != want_saturated && ++failures <= 10) {
      ADD_FAILURE() << "x=" << x << " got " << int(Float8E8M0(x).bits) << " want "
                    << want_saturated;
    }
    if (Float8E8M0(x, false).bits != want && ++failures <= 10) {
      ADD_FAILURE() << "x=" << x << " (no saturation) got " << int(Float8E8M0(x, false).bits);
    }
  }
  EXPECT_EQ(failures, 0);
}

// ---- float4 ---------------------------------------------------------------------------------

TEST(Float4E2M1, ValueTable) {
  const float values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (uint8_t code = 0; code < 8; ++code) {
    EXPECT_EQ(float(Float4E2M1::from_bits(code)), values[code]);
    EXPECT_EQ(float(Float4E2M1::from_bits(code | 0x8)), -values[code]);
    EXPECT_EQ(Float4E2M1(values[code]).bits, code);
    EXPECT_EQ(Float4E2M1(-values[code]).bits, code | 0x8);
  }
  EXPECT_TRUE(std::signbit(float(Float4E2M1::from_bits(0x8))));  // -0
}

TEST(Float4E2M1, AllBitPatternsRoundTrip) {
  for (uint8_t code = 0; code < 16; ++code) {
    const float value = float(Float4E2M1::from_bits(code));
    EXPECT_EQ(Float4E2M1(value).bits, code);
    EXPECT_EQ(Float4E2M1(value, false).bits, code);
  }
}

TEST(Float4E2M1, RoundingAndSpecialValues) {
  auto enc = [](float x, bool sat = true) { return Float4E2M1(x, sat).bits; };
  // Ties go to the even mantissa.
  EXPECT_EQ(enc(0.25f), 0x0);
  EXPECT_EQ(enc(0.75f), 0x2);
  EXPECT_EQ(enc(1.25f), 0x2);
  EXPECT_EQ(enc(1.75f), 0x4);
  EXPECT_EQ(enc(2.5f), 0x4);
  EXPECT_EQ(enc(3.5f), 0x6);
  EXPECT_EQ(enc(5.0f), 0x6);
  EXPECT_EQ(enc(-5.0f), 0xE);
  EXPECT_EQ(enc(0.26f), 0x1);
  EXPECT_EQ(enc(5.01f), 0x7);
  // The ONNX float4 table: saturate always; NaN -> 6.
  EXPECT_EQ(enc(9.0f), 0x7);
  EXPECT_EQ(enc(-8.0f), 0xF);
  EXPECT_EQ(enc(1e6f, false), 0x7);
  EXPECT_EQ(enc(kInf), 0x7);
  EXPECT_EQ(enc(-kInf), 0xF);
  EXPECT_EQ(enc(kInf, false), 0x7);
  EXPECT_EQ(enc(kNan), 0x7);
  EXPECT_EQ(enc(-kNan), 0x7);
  EXPECT_EQ(enc(-0.0f), 0x8);
  EXPECT_EQ(enc(-0.01f), 0x8);
  EXPECT_EQ(enc(0.48f), 0x1);
  EXPECT_EQ(enc(1.05f), 0x2);
  EXPECT_EQ(enc(-3.5f), 0xE);
}

TEST(Float4E2M1, RoundingMatchesBruteForceOracle) {
  check_against_oracle(float4_format(), true, 4093);
  check_against_oracle(float4_format(), false, 4093);
}

// ---- float16 --------------------------------------------------------------------------------

TEST(Float16, KnownValues) {
  auto enc = [](float x) { return Float16(x).bits; };
  auto dec = [](uint16_t b) { return float(Float16::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x3C00);
  EXPECT_EQ(enc(-2.0f), 0xC000);
  EXPECT_EQ(enc(65504.0f), 0x7BFF);
  EXPECT_EQ(enc(65519.0f), 0x7BFF);
  EXPECT_EQ(enc(65520.0f), 0x7C00);  // tie between 65504 and 65536: even, infinity
  EXPECT_EQ(enc(1e6f), 0x7C00);
  EXPECT_EQ(enc(-1e6f), 0xFC00);
  EXPECT_EQ(enc(kInf), 0x7C00);
  EXPECT_EQ(enc(-kInf), 0xFC00);
  EXPECT_EQ(enc(0.0f), 0x0000);
  EXPECT_EQ(enc(-0.0f), 0x8000);
  EXPECT_EQ(enc(std::ldexp(1.0f, -24)), 0x0001);                        // smallest subnormal
  EXPECT_EQ(enc(std::ldexp(1.0f, -25)), 0x0000);                        // tie: even
  EXPECT_EQ(enc(std::ldexp(3.0f, -26)), 0x0001);                        // 0.75 of a quantum
  EXPECT_EQ(enc(std::ldexp(3.0f, -25)), 0x0002);                        // 1.5 quanta: tie, even
  EXPECT_EQ(enc(std::ldexp(1.0f, -14)), 0x0400);                        // smallest normal
  EXPECT_EQ(enc(std::nextafter(std::ldexp(1.0f, -14), 0.0f)), 0x0400);  // rounds up into it
  EXPECT_EQ(enc(1.0f + std::ldexp(1.0f, -11)), 0x3C00);                 // tie: even
  EXPECT_EQ(enc(1.0f + std::ldexp(3.0f, -11)), 0x3C02);                 // tie: even
  EXPECT_EQ(enc(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  EXPECT_EQ(enc(0.1f), 0x2E66);
  EXPECT_EQ(dec(0x3555), 0.333251953125f);
  EXPECT_EQ(dec(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(dec(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(dec(0x7BFF), 65504.0f);
  EXPECT_EQ(dec(0x7C00), kInf);
  EXPECT_EQ(dec(0xFC00), -kInf);
  EXPECT_TRUE(std::signbit(dec(0x8000)));
  // NaN keeps its sign and stays NaN even when its payload is only in the low bits.
  EXPECT_EQ(enc(kNan) & 0x7E00, 0x7E00);
  EXPECT_EQ(enc(-kNan) & 0xFE00, 0xFE00);
  EXPECT_EQ(enc(from_bits32(0x7F800001u)), 0x7E00);
  EXPECT_TRUE(std::isnan(dec(0x7C01)));
  EXPECT_TRUE(std::isnan(dec(0xFE00)));
  EXPECT_TRUE(std::signbit(dec(0xFE00)));
}

TEST(Float16, AllBitPatternsDecodeExactlyAndRoundTrip) {
  const Format f = float16_format();
  for (uint32_t code = 0; code < 0x10000; ++code) {
    const float value = f.decode(code);
    const uint32_t exponent = (code >> 10) & 0x1F;
    if (exponent == 0x1F && (code & 0x3FF) != 0) {
      ASSERT_TRUE(std::isnan(value)) << code;
      // Quiet NaNs come back unchanged; signalling ones come back quieted.
      EXPECT_EQ(f.encode(value, true), code | 0x200) << code;
      continue;
    }
    if (exponent == 0x1F) {
      EXPECT_EQ(value, (code & 0x8000) ? -kInf : kInf);
    } else {
      const double mag = f.value(code & 0x7FFF);
      EXPECT_EQ(static_cast<double>(value), (code & 0x8000) ? -mag : mag) << code;
    }
    EXPECT_EQ(f.encode(value, true), code) << code;
  }
}

TEST(Float16, RoundingMatchesBruteForceOracle) {
  check_against_oracle(float16_format(), false, 4093);
}

// ---- bfloat16 -------------------------------------------------------------------------------

TEST(BFloat16, KnownValues) {
  auto enc = [](float x) { return BFloat16(x).bits; };
  auto dec = [](uint16_t b) { return float(BFloat16::from_bits(b)); };
  EXPECT_EQ(enc(1.0f), 0x3F80);
  EXPECT_EQ(enc(-1.0f), 0xBF80);
  EXPECT_EQ(enc(1.0f + std::ldexp(1.0f, -8)), 0x3F80);  // tie: even
  EXPECT_EQ(enc(1.0f + std::ldexp(3.0f, -8)), 0x3F82);  // tie: even
  EXPECT_EQ(enc(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 0x3F81);
  EXPECT_EQ(enc(std::numeric_limits<float>::max()), 0x7F80);  // rounds past the largest: inf
  EXPECT_EQ(enc(from_bits32(0x7F7F7FFFu)), 0x7F7F);
  EXPECT_EQ(enc(from_bits32(0x7F7F8000u)), 0x7F80);  // tie with odd mantissa rounds up to inf
  EXPECT_EQ(enc(kInf), 0x7F80);
  EXPECT_EQ(enc(-kInf), 0xFF80);
  EXPECT_EQ(enc(-0.0f), 0x8000);
  EXPECT_EQ(enc(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(enc(from_bits32(0x00018000u)), 0x0002);  // subnormal tie: even
  EXPECT_EQ(dec(0x3F80), 1.0f);
  EXPECT_EQ(dec(0x7F7F), from_bits32(0x7F7F0000u));
  EXPECT_EQ(dec(0x0001), from_bits32(0x00010000u));
  // NaN is preserved: sign and upper payload kept, quiet bit set.
  EXPECT_EQ(enc(kNan), 0x7FC0);
  EXPECT_EQ(enc(-kNan), 0xFFC0);
  EXPECT_EQ(enc(from_bits32(0x7F800001u)), 0x7FC0);  // low-payload NaN does not become inf
  EXPECT_EQ(enc(from_bits32(0x7FA50000u)), 0x7FE5);
  EXPECT_EQ(bits32(dec(0x7FC1)), 0x7FC10000u);
}

TEST(BFloat16, AllBitPatternsRoundTrip) {
  for (uint32_t code = 0; code < 0x10000; ++code) {
    const float value = float(BFloat16::from_bits(static_cast<uint16_t>(code)));
    EXPECT_EQ(bits32(value), code << 16);
    const bool nan = (code & 0x7F80) == 0x7F80 && (code & 0x7F) != 0;
    EXPECT_EQ(BFloat16(value).bits, nan ? (code | 0x40) : code) << code;
  }
}

TEST(BFloat16, RoundingMatchesBruteForceOracle) {
  check_against_oracle(bfloat16_format(), false, 4093);
}

// ---- small integers -------------------------------------------------------------------------

TEST(SmallIntegers, ConstructorsKeepTheValueInRange) {
  // Out-of-range inputs keep their low bits, two's complement: ONNX's "truncating".
  EXPECT_EQ(int(Int4(7)), 7);
  EXPECT_EQ(int(Int4(-8)), -8);
  EXPECT_EQ(int(Int4(8)), -8);
  EXPECT_EQ(int(Int4(9)), -7);
  EXPECT_EQ(int(Int4(-9)), 7);
  EXPECT_EQ(int(UInt4(15)), 15);
  EXPECT_EQ(int(UInt4(17)), 1);
  EXPECT_EQ(int(UInt4(-1)), 15);
  EXPECT_EQ(int(Int2(1)), 1);
  EXPECT_EQ(int(Int2(-2)), -2);
  EXPECT_EQ(int(Int2(2)), -2);
  EXPECT_EQ(int(UInt2(3)), 3);
  EXPECT_EQ(int(UInt2(5)), 1);
}

// ---- sub-byte packing -----------------------------------------------------------------------

std::vector<uint8_t> pack(DataType t, const std::vector<uint8_t>& values) {
  std::vector<uint8_t> out(packed_byte_size(t, values.size()), 0xAA);
  pack_subbyte(t, values.data(), values.size(), out.data());
  return out;
}

std::vector<uint8_t> unpack(DataType t, const std::vector<uint8_t>& packed, size_t count) {
  std::vector<uint8_t> out(count, 0xAA);
  unpack_subbyte(t, packed.data(), count, out.data());
  return out;
}

uint8_t byte_of(int v) { return static_cast<uint8_t>(static_cast<int8_t>(v)); }

TEST(PackedBits, ByteSizes) {
  EXPECT_EQ(packed_byte_size(DataType::Int4, 0), 0u);
  EXPECT_EQ(packed_byte_size(DataType::Int4, 1), 1u);
  EXPECT_EQ(packed_byte_size(DataType::UInt4, 2), 1u);
  EXPECT_EQ(packed_byte_size(DataType::Float4E2M1, 7), 4u);
  EXPECT_EQ(packed_byte_size(DataType::Int2, 1), 1u);
  EXPECT_EQ(packed_byte_size(DataType::UInt2, 4), 1u);
  EXPECT_EQ(packed_byte_size(DataType::Int2, 5), 2u);
  EXPECT_EQ(packed_byte_size(DataType::UInt2, 9), 3u);
  EXPECT_EQ(packed_byte_size(DataType::Float32, 3), 12u);
  EXPECT_EQ(packed_byte_size(DataType::Float8E4M3FN, 3), 3u);
  EXPECT_THROW(packed_byte_size(DataType::String, 3), Error);
  EXPECT_TRUE(is_subbyte_dtype(DataType::Int2));
  EXPECT_FALSE(is_subbyte_dtype(DataType::Int8));
}

TEST(PackedBits, Int4KnownLayout) {
  // First element in the low nibble; the padding nibble of an odd count is zero.
  const std::vector<uint8_t> values = {byte_of(1), byte_of(-1), byte_of(7), byte_of(-8),
                                       byte_of(-3)};
  const auto packed = pack(DataType::Int4, values);
  EXPECT_EQ(packed, (std::vector<uint8_t>{0xF1, 0x87, 0x0D}));
  EXPECT_EQ(unpack(DataType::Int4, packed, values.size()), values);
}

TEST(PackedBits, UInt4AndFloat4AreNotSignExtended) {
  const std::vector<uint8_t> packed = {0xF1, 0x8C};
  EXPECT_EQ(unpack(DataType::UInt4, packed, 3), (std::vector<uint8_t>{0x1, 0xF, 0xC}));
  EXPECT_EQ(unpack(DataType::Float4E2M1, packed, 4), (std::vector<uint8_t>{0x1, 0xF, 0xC, 0x8}));
  EXPECT_EQ(unpack(DataType::Int4, packed, 4),
            (std::vector<uint8_t>{0x01, 0xFF, byte_of(-4), byte_of(-8)}));
  // Float4 codes survive packing, sign bit included.
  const std::vector<uint8_t> codes = {Float4E2M1(-6.0f).bits, Float4E2M1(0.5f).bits,
                                      Float4E2M1(-0.0f).bits};
  const auto packed_codes = pack(DataType::Float4E2M1, codes);
  EXPECT_EQ(packed_codes, (std::vector<uint8_t>{0x1F, 0x08}));
  EXPECT_EQ(unpack(DataType::Float4E2M1, packed_codes, 3), codes);
}

TEST(PackedBits, TwoBitKnownLayout) {
  const std::vector<uint8_t> values = {byte_of(-2), byte_of(-1), byte_of(0), byte_of(1),
                                       byte_of(-1)};
  const auto packed = pack(DataType::Int2, values);
  EXPECT_EQ(packed, (std::vector<uint8_t>{0x4E, 0x03}));
  EXPECT_EQ(unpack(DataType::Int2, packed, values.size()), values);
  const std::vector<uint8_t> u = {0, 1, 2, 3, 1, 2};
  const auto packed_u = pack(DataType::UInt2, u);
  EXPECT_EQ(packed_u, (std::vector<uint8_t>{0xE4, 0x09}));
  EXPECT_EQ(unpack(DataType::UInt2, packed_u, u.size()), u);
}

TEST(PackedBits, RoundTripsForEveryCountAndType) {
  struct Case {
    DataType type;
    int lo, hi;  // value range
  };
  const Case cases[] = {{DataType::Int4, -8, 7},
                        {DataType::UInt4, 0, 15},
                        {DataType::Float4E2M1, 0, 15},
                        {DataType::Int2, -2, 1},
                        {DataType::UInt2, 0, 3}};
  for (const Case& c : cases) {
    for (size_t count = 0; count <= 37; ++count) {
      std::vector<uint8_t> values(count);
      for (size_t i = 0; i < count; ++i) {
        values[i] = byte_of(c.lo + static_cast<int>((i * 7 + count) % (c.hi - c.lo + 1)));
      }
      const auto packed = pack(c.type, values);
      ASSERT_EQ(packed.size(), packed_byte_size(c.type, count));
      EXPECT_EQ(unpack(c.type, packed, count), values) << dtype_name(c.type) << " " << count;
      // The padding in the last byte is zero.
      const size_t used_bits = count * (c.hi - c.lo == 3 ? 2 : 4);
      if (used_bits % 8 != 0) {
        EXPECT_EQ(packed.back() >> (used_bits % 8), 0) << dtype_name(c.type) << " " << count;
      }
    }
  }
}

TEST(PackedBits, EveryByteUnpacksAndRepacksToItself) {
  for (DataType t :
       {DataType::Int4, DataType::UInt4, DataType::Float4E2M1, DataType::Int2, DataType::UInt2}) {
    const size_t per_byte = (t == DataType::Int2 || t == DataType::UInt2) ? 4 : 2;
    for (uint32_t b = 0; b < 256; ++b) {
      const std::vector<uint8_t> packed = {static_cast<uint8_t>(b)};
      const auto values = unpack(t, packed, per_byte);
      EXPECT_EQ(pack(t, values), packed) << dtype_name(t) << " " << b;
    }
  }
}

TEST(PackedBits, RejectsTypesThatAreNotPacked) {
  uint8_t in[2] = {1, 2};
  uint8_t out[2] = {};
  EXPECT_THROW(unpack_subbyte(DataType::Int8, in, 2, out), Error);
  EXPECT_THROW(pack_subbyte(DataType::Float32, in, 2, out), Error);
}

// ---- DataType -------------------------------------------------------------------------------

TEST(DataType, Names) {
  EXPECT_EQ(dtype_name(DataType::Float32), "float32");
  EXPECT_EQ(dtype_name(DataType::Float16), "float16");
  EXPECT_EQ(dtype_name(DataType::BFloat16), "bfloat16");
  EXPECT_EQ(dtype_name(DataType::Float8E4M3FN), "float8e4m3fn");
  EXPECT_EQ(dtype_name(DataType::Float8E4M3FNUZ), "float8e4m3fnuz");
  EXPECT_EQ(dtype_name(DataType::Float8E5M2), "float8e5m2");
  EXPECT_EQ(dtype_name(DataType::Float8E5M2FNUZ), "float8e5m2fnuz");
  EXPECT_EQ(dtype_name(DataType::Float8E8M0), "float8e8m0");
  EXPECT_EQ(dtype_name(DataType::Float4E2M1), "float4e2m1");
  EXPECT_EQ(dtype_name(DataType::Int4), "int4");
  EXPECT_EQ(dtype_name(DataType::UInt2), "uint2");
  EXPECT_EQ(dtype_name(DataType::String), "string");
  EXPECT_EQ(dtype_name(DataType::Bool), "bool");
  EXPECT_EQ(dtype_name(DataType::Complex64), "complex64");
  EXPECT_EQ(dtype_name(DataType::Complex128), "complex128");
  EXPECT_EQ(dtype_name(DataType::Undefined), "undefined");
  EXPECT_EQ(dtype_name(static_cast<DataType>(99)), "unknown");
  // Every valid code has its own name.
  std::vector<std::string_view> names;
  for (int32_t code = 1; code <= 26; ++code) {
    ASSERT_TRUE(is_valid_dtype(code));
    names.push_back(dtype_name(static_cast<DataType>(code)));
    EXPECT_NE(names.back(), "unknown");
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
}

TEST(DataType, Sizes) {
  EXPECT_EQ(dtype_size(DataType::Float32), 4u);
  EXPECT_EQ(dtype_size(DataType::Float64), 8u);
  EXPECT_EQ(dtype_size(DataType::Int64), 8u);
  EXPECT_EQ(dtype_size(DataType::Bool), 1u);
  EXPECT_EQ(dtype_size(DataType::Float16), 2u);
  EXPECT_EQ(dtype_size(DataType::BFloat16), 2u);
  EXPECT_EQ(dtype_size(DataType::Complex64), 8u);
  EXPECT_EQ(dtype_size(DataType::Complex128), 16u);
  EXPECT_EQ(dtype_size(DataType::String), sizeof(std::string));
  EXPECT_EQ(dtype_size(DataType::Undefined), 0u);
  for (DataType t : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                     DataType::Float8E5M2FNUZ, DataType::Float8E8M0, DataType::Float4E2M1,
                     DataType::Int4, DataType::UInt4, DataType::Int2, DataType::UInt2}) {
    EXPECT_EQ(dtype_size(t), 1u) << dtype_name(t);
  }
  EXPECT_EQ(dtype_size(dtype_of<Float16>), sizeof(Float16));
}

TEST(DataType, Validity) {
  EXPECT_FALSE(is_valid_dtype(0));
  EXPECT_TRUE(is_valid_dtype(1));
  EXPECT_TRUE(is_valid_dtype(26));
  EXPECT_FALSE(is_valid_dtype(27));
  EXPECT_FALSE(is_valid_dtype(-1));
}

TEST(DataType, Classification) {
  for (DataType t : {DataType::Float32, DataType::Float16, DataType::Float64, DataType::BFloat16,
                     DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                     DataType::Float8E5M2FNUZ, DataType::Float8E8M0, DataType::Float4E2M1}) {
    EXPECT_TRUE(is_float_dtype(t)) << dtype_name(t);
    EXPECT_FALSE(is_integer_dtype(t)) << dtype_name(t);
    EXPECT_EQ(is_signed_dtype(t), t != DataType::Float8E8M0) << dtype_name(t);
  }
  for (DataType t : {DataType::Int8, DataType::Int16, DataType::Int32, DataType::Int64,
                     DataType::Int4, DataType::Int2}) {
    EXPECT_TRUE(is_integer_dtype(t)) << dtype_name(t);
    EXPECT_TRUE(is_signed_dtype(t)) << dtype_name(t);
    EXPECT_FALSE(is_float_dtype(t)) << dtype_name(t);
  }
  for (DataType t : {DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64,
                     DataType::UInt4, DataType::UInt2}) {
    EXPECT_TRUE(is_integer_dtype(t)) << dtype_name(t);
    EXPECT_FALSE(is_signed_dtype(t)) << dtype_name(t);
  }
  for (DataType t : {DataType::Bool, DataType::String, DataType::Complex64, DataType::Complex128,
                     DataType::Undefined}) {
    EXPECT_FALSE(is_integer_dtype(t)) << dtype_name(t);
    EXPECT_FALSE(is_float_dtype(t)) << dtype_name(t);
  }
}

}  // namespace
}  // namespace kiln
