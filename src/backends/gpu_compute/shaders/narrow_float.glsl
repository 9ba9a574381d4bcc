// The narrow float formats (float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1)
// to and from float32 bits, bit for bit as core/float_types.cpp's NarrowFormat converts them
// (round to nearest even, each format's NaN, infinity and saturation rules). 32-bit integer
// operations only. Shared by cast_wide.comp and quantize_linear.comp.

const uint IEEE = 0, ALL_ONES_NAN = 1, UNSIGNED_ZERO = 2, NO_SPECIALS = 3;

struct Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  uint specials;
};

// The format of ONNX type `t` (TensorProto codes: 17 float8e4m3fn, 18 float8e4m3fnuz, 19 float8e5m2,
// 20 float8e5m2fnuz; anything else float4e2m1).
Format format_of(uint t) {
  switch (t) {
    case 17u: return Format(4, 3, 7, ALL_ONES_NAN);
    case 18u: return Format(4, 3, 8, UNSIGNED_ZERO);
    case 19u: return Format(5, 2, 15, IEEE);
    case 20u: return Format(5, 2, 16, UNSIGNED_ZERO);
    default: return Format(2, 1, 1, NO_SPECIALS);
  }
}

uint max_code(Format f) {
  const uint sign_bit = 1u << uint(f.exponent_bits + f.mantissa_bits);
  switch (f.specials) {
    case IEEE:
      return ((((1u << uint(f.exponent_bits)) - 1u) - 1u) << uint(f.mantissa_bits)) |
             ((1u << uint(f.mantissa_bits)) - 1u);
    case ALL_ONES_NAN: return sign_bit - 2u;
    default: return sign_bit - 1u;
  }
}

// The float32 bits of code `code` (every value of these formats is a normal float).
uint decode_narrow(uint code, Format f) {
  const uint sign_bit = 1u << uint(f.exponent_bits + f.mantissa_bits);
  const uint sign = (code & sign_bit) != 0u ? 0x80000000u : 0u;
  const uint magnitude = code & (sign_bit - 1u);
  const uint exponent = magnitude >> uint(f.mantissa_bits);
  const uint mantissa = magnitude & ((1u << uint(f.mantissa_bits)) - 1u);
  if (f.specials == IEEE && exponent == (1u << uint(f.exponent_bits)) - 1u)
    return sign | (mantissa != 0u ? 0x7fc00000u : 0x7f800000u);
  if (f.specials == ALL_ONES_NAN && magnitude == sign_bit - 1u) return sign | 0x7fc00000u;
  if (f.specials == UNSIGNED_ZERO && code == sign_bit) return 0x7fc00000u;
  if (exponent == 0u) {
    if (mantissa == 0u) return sign;
    const int lead = findMSB(mantissa);
    return sign | (uint(lead + 1 - f.bias - f.mantissa_bits + 127) << 23) |
           ((mantissa ^ (1u << uint(lead))) << uint(23 - lead));
  }
  return sign | (uint(int(exponent) - f.bias + 127) << 23) |
         (mantissa << uint(23 - f.mantissa_bits));
}

// The finite non-negative float32 `abs_bits` rounded to nearest even to a magnitude code of a
// format with `mantissa_bits` and `bias`, the exponent unbounded above (float_types.cpp's
// round_to_code).
uint round_to_code(uint abs_bits, int mantissa_bits, int bias) {
  const int float_exponent = int(abs_bits >> 23);
  const uint fraction = abs_bits & 0x7fffffu;
  const uint significand = float_exponent == 0 ? fraction : (fraction | 0x800000u);
  const int lsb_exponent = float_exponent == 0 ? -149 : float_exponent - 150;
  const int min_exponent = 1 - bias;
  const int exponent = max(float_exponent - 127, min_exponent);
  const int shift = exponent - mantissa_bits - lsb_exponent;
  uint quotient = 0u;
  if (shift < 25) {
    quotient = significand >> uint(shift);
    const uint remainder = significand & ((1u << uint(shift)) - 1u);
    const uint half_ = 1u << uint(shift - 1);
    if (remainder > half_ || (remainder == half_ && (quotient & 1u) != 0u)) ++quotient;
  }
  return (uint(exponent - min_exponent) << uint(mantissa_bits)) + quotient;
}

uint encode_narrow(uint bits, Format f, bool saturate) {
  const uint sign_bit = 1u << uint(f.exponent_bits + f.mantissa_bits);
  const uint magnitude_mask = sign_bit - 1u;
  const uint all_ones = (1u << uint(f.exponent_bits)) - 1u;
  const uint sign = (bits & 0x80000000u) != 0u ? sign_bit : 0u;
  const uint abs_bits = bits & 0x7fffffffu;
  const uint top = max_code(f);
  if (abs_bits > 0x7f800000u) {
    switch (f.specials) {
      case IEEE:
        return sign | (all_ones << uint(f.mantissa_bits)) | (1u << uint(f.mantissa_bits - 1));
      case ALL_ONES_NAN: return sign | magnitude_mask;
      case UNSIGNED_ZERO: return sign_bit;
      default: return top;  // float4: NaN -> +max whatever its sign
    }
  }
  const uint code =
      abs_bits == 0x7f800000u ? top + 1u : round_to_code(abs_bits, f.mantissa_bits, f.bias);
  if (code > top) {
    if (saturate || f.specials == NO_SPECIALS) return sign | top;
    switch (f.specials) {
      case IEEE: return sign | (all_ones << uint(f.mantissa_bits));
      case ALL_ONES_NAN: return sign | magnitude_mask;
      default: return sign_bit;
    }
  }
  if (code == 0u && f.specials == UNSIGNED_ZERO) return 0u;
  return sign | code;
}
