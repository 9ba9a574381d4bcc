#include "backends/gpu_pixel/convert.h"

#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// OP_* selects the conversion at compile time: one small program per target.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;

// float32 -> float16 -> float32, as the CPU's float_to_half and half_to_float.
float round_half(float f) {
  uint bits = floatBitsToUint(f);
  uint sign = bits & 0x80000000u;
  uint a = bits & 0x7fffffffu;
  if (a > 0x7f800000u) return uintBitsToFloat(bits | 0x400000u);  // NaN, made quiet as the CPU does
  if (a >= 0x47800000u) return uintBitsToFloat(sign | 0x7f800000u);  // 2^16 and above: inf
  uint h;
  if (a < 0x38800000u) {
    // Below half's smallest normal: adding 0.5 (ulp 2^-24, half's subnormal quantum) rounds to
    // nearest even at that quantum; the low bits are the code.
    h = floatBitsToUint(uintBitsToFloat(a) + 0.5) - 0x3f000000u;
  } else {
    // Rebias the exponent (127 -> 15, modulo 2^32) and round the 13 dropped bits to nearest
    // even; a carry moves into the exponent, up to infinity.
    h = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  }
  if (h >= 0x7c00u) return uintBitsToFloat(sign | 0x7f800000u);
  if (h < 0x400u) return uintBitsToFloat(sign | floatBitsToUint(float(h) * 5.9604644775390625e-8));
  return uintBitsToFloat(sign | ((h << 13) + (112u << 23)));
}

// float32 -> bfloat16 -> float32, as the CPU's float_to_bfloat16.
float round_bfloat16(float f) {
  uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uintBitsToFloat(((x >> 16) | 0x40u) << 16);
  return uintBitsToFloat(((x + 0x7fffu + ((x >> 16) & 1u)) >> 16) << 16);
}

#if defined(F8_MANTISSA)
// float32 -> float8 -> float32 for the format F8_MANTISSA (mantissa bits), F8_BIAS, F8_MAX_CODE
// (the largest finite magnitude code) and F8_SPECIALS (0: IEEE infinity and NaN, 1: all ones is
// NaN, 2: the negative-zero pattern is the only NaN), as float_types.cpp's encode_narrow: the
// float is rounded to the format's nearest code, ties to even, on codes with an unbounded
// exponent (consecutive codes are consecutive values, so a carry moves into the exponent).
float round_float8(float f) {
  uint bits = floatBitsToUint(f);
  uint sign = bits & 0x80000000u;
  uint a = bits & 0x7fffffffu;
  if (a > 0x7f800000u) return uintBitsToFloat(sign | 0x7fc00000u);  // the download's NaN code
  uint code = F8_MAX_CODE + 1u;  // infinity takes the overflow path
  if (a < 0x7f800000u) {
    int fe = int(a >> 23);
    uint significand = fe == 0 ? (a & 0x7fffffu) : ((a & 0x7fffffu) | 0x800000u);
    int lsb = fe == 0 ? -149 : fe - 150;
    int min_e = 1 - F8_BIAS;
    int e = max(fe - 127, min_e);
    int shift = e - F8_MANTISSA - lsb;  // above 0 for every float8 format
    uint q = 0u;
    if (shift < 25) {
      q = significand >> uint(shift);
      uint rest = significand & ((1u << uint(shift)) - 1u);
      uint half_quantum = 1u << uint(shift - 1);
      if (rest > half_quantum || (rest == half_quantum && (q & 1u) == 1u)) ++q;
    }
    code = (uint(e - min_e) << uint(F8_MANTISSA)) + q;
  }
  if (code > F8_MAX_CODE) {
#if F8_SATURATE
    code = F8_MAX_CODE;
#else
    return uintBitsToFloat(sign | (F8_SPECIALS == 0 ? 0x7f800000u : 0x7fc00000u));
#endif
  }
  if (code == 0u) return F8_SPECIALS == 2 ? 0.0 : uintBitsToFloat(sign);  // FNUZ: one zero
  // The code's value as float bits (every float8 value is a normal float).
  uint e8 = code >> uint(F8_MANTISSA);
  uint m8 = code & ((1u << uint(F8_MANTISSA)) - 1u);
  if (e8 == 0u) {
    // Subnormal: m8 2^(1 - bias - mantissa), a power of two times a small integer: exact.
    float quantum = uintBitsToFloat(uint(1 - F8_BIAS - F8_MANTISSA + 127) << 23);
    return uintBitsToFloat(sign | floatBitsToUint(float(m8) * quantum));
  }
  return uintBitsToFloat(sign | (uint(int(e8) - F8_BIAS + 127) << 23) |
                         (m8 << uint(23 - F8_MANTISSA)));
}
#endif

// Truncation through int32 (INT32_MIN, low bits 0, for NaN and values outside int32), then the
// low `bits` bits, signed or not.
float wrap_int(float v, int bits, bool is_signed) {
  // isnan and plain comparisons: the compiler may turn a negated comparison into its opposite,
  // which NaN does not satisfy.
  if (isnan(v) || v < -2147483648.0 || v >= 2147483648.0) return 0.0;
  int mask = (1 << bits) - 1;
  int low = int(v) & mask;  // int() truncates towards zero
  if (is_signed && low >= (1 << (bits - 1))) low -= 1 << bits;
  return float(low);
}

float apply(float v) {
#if defined(OP_FLOAT32)
  return v;
#elif defined(OP_FLOAT16)
  return round_half(v);
#elif defined(OP_BFLOAT16)
  return round_bfloat16(v);
#elif defined(F8_MANTISSA)
  return round_float8(v);
#elif defined(OP_BOOL)
  // On the bits: the device may flush a subnormal to zero in a float comparison.
  return (floatBitsToUint(v) & 0x7fffffffu) != 0u ? 1.0 : 0.0;
#elif defined(OP_INT8)
  return wrap_int(v, 8, true);
#elif defined(OP_UINT8)
  return wrap_int(v, 8, false);
#elif defined(OP_INT16)
  return wrap_int(v, 16, true);
#elif defined(OP_UINT16)
  return wrap_int(v, 16, false);
#elif defined(OP_INT4)
  return wrap_int(v, 4, true);
#elif defined(OP_UINT4)
  return wrap_int(v, 4, false);
#elif defined(OP_INT2)
  return wrap_int(v, 2, true);
#elif defined(OP_UINT2)
  return wrap_int(v, 2, false);
#elif defined(OP_NOT)
  return v == 0.0 ? 1.0 : 0.0;
#endif
}

void main() {
  vec4 v = fetch_texel(x, x_width, output_texel());
  out_texel = finish_texel(vec4(apply(v.x), apply(v.y), apply(v.z), apply(v.w)));
}
)";

const char* name_of(ConvertOp op) {
  switch (op) {
    case ConvertOp::ToFloat32:
      return "FLOAT32";
    case ConvertOp::ToFloat16:
      return "FLOAT16";
    case ConvertOp::ToBFloat16:
      return "BFLOAT16";
    case ConvertOp::ToFloat8E4M3FN:
      return "FLOAT8E4M3FN";
    case ConvertOp::ToFloat8E4M3FNUZ:
      return "FLOAT8E4M3FNUZ";
    case ConvertOp::ToFloat8E5M2:
      return "FLOAT8E5M2";
    case ConvertOp::ToFloat8E5M2FNUZ:
      return "FLOAT8E5M2FNUZ";
    case ConvertOp::ToBool:
      return "BOOL";
    case ConvertOp::ToInt4:
      return "INT4";
    case ConvertOp::ToUInt4:
      return "UINT4";
    case ConvertOp::ToInt2:
      return "INT2";
    case ConvertOp::ToUInt2:
      return "UINT2";
    case ConvertOp::ToInt8:
      return "INT8";
    case ConvertOp::ToUInt8:
      return "UINT8";
    case ConvertOp::ToInt16:
      return "INT16";
    case ConvertOp::ToUInt16:
      return "UINT16";
    case ConvertOp::Not:
      return "NOT";
  }
  throw Error("OpenGL ES conversion: unknown op code");
}

}  // namespace

std::optional<ConvertOp> convert_to(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return ConvertOp::ToFloat32;
    case DataType::Float16:
      return ConvertOp::ToFloat16;
    case DataType::BFloat16:
      return ConvertOp::ToBFloat16;
    case DataType::Float8E4M3FN:
      return ConvertOp::ToFloat8E4M3FN;
    case DataType::Float8E4M3FNUZ:
      return ConvertOp::ToFloat8E4M3FNUZ;
    case DataType::Float8E5M2:
      return ConvertOp::ToFloat8E5M2;
    case DataType::Float8E5M2FNUZ:
      return ConvertOp::ToFloat8E5M2FNUZ;
    case DataType::Bool:
      return ConvertOp::ToBool;
    case DataType::Int4:
      return ConvertOp::ToInt4;
    case DataType::UInt4:
      return ConvertOp::ToUInt4;
    case DataType::Int2:
      return ConvertOp::ToInt2;
    case DataType::UInt2:
      return ConvertOp::ToUInt2;
    case DataType::Int8:
      return ConvertOp::ToInt8;
    case DataType::UInt8:
      return ConvertOp::ToUInt8;
    case DataType::Int16:
      return ConvertOp::ToInt16;
    case DataType::UInt16:
      return ConvertOp::ToUInt16;
    default:
      return std::nullopt;
  }
}

namespace {

// The float8 format's defines (float_types.cpp's NarrowFormat), or "" for another op.
std::string float8_defines(ConvertOp op, bool saturate) {
  const char* format = nullptr;
  switch (op) {
    case ConvertOp::ToFloat8E4M3FN:
      format =
          "#define F8_MANTISSA 3\n#define F8_BIAS 7\n#define F8_MAX_CODE 0x7eu\n"
          "#define F8_SPECIALS 1\n";
      break;
    case ConvertOp::ToFloat8E4M3FNUZ:
      format =
          "#define F8_MANTISSA 3\n#define F8_BIAS 8\n#define F8_MAX_CODE 0x7fu\n"
          "#define F8_SPECIALS 2\n";
      break;
    case ConvertOp::ToFloat8E5M2:
      format =
          "#define F8_MANTISSA 2\n#define F8_BIAS 15\n#define F8_MAX_CODE 0x7bu\n"
          "#define F8_SPECIALS 0\n";
      break;
    case ConvertOp::ToFloat8E5M2FNUZ:
      format =
          "#define F8_MANTISSA 2\n#define F8_BIAS 16\n#define F8_MAX_CODE 0x7fu\n"
          "#define F8_SPECIALS 2\n";
      break;
    default:
      return "";
  }
  return std::string(format) + "#define F8_SATURATE " + (saturate ? "1" : "0") + "\n";
}

}  // namespace

void Convert::record(ConvertOp op, const TextureTensor& x, TextureTensor& y, bool saturate) const {
  const std::string name = name_of(op);
  check(x.element_count() == y.element_count(),
        "conversion to " + name + " on OpenGL ES: input of " + std::to_string(x.element_count()) +
            " elements, output of " + std::to_string(y.element_count()));
  if (x.element_count() == 0) return;
  const std::string float8 = float8_defines(op, saturate);
  const std::string variant = float8.empty() ? name : name + (saturate ? "/sat" : "/nosat");
  const Program& program = context_.programs().get(
      "convert", variant, float8.empty() ? "#define OP_" + name + "\n" : float8, kShader);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs);
}

}  // namespace kiln::gpu_pixel
