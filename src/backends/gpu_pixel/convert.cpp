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
  if (a > 0x7f800000u) return f;  // NaN
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
#elif defined(OP_BOOL)
  return (v != 0.0 || isnan(v)) ? 1.0 : 0.0;
#elif defined(OP_INT8)
  return wrap_int(v, 8, true);
#elif defined(OP_UINT8)
  return wrap_int(v, 8, false);
#elif defined(OP_INT16)
  return wrap_int(v, 16, true);
#elif defined(OP_UINT16)
  return wrap_int(v, 16, false);
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
    case ConvertOp::ToBool:
      return "BOOL";
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
    case DataType::Bool:
      return ConvertOp::ToBool;
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

void Convert::record(ConvertOp op, const TextureTensor& x, TextureTensor& y) const {
  const std::string name = name_of(op);
  check(x.element_count() == y.element_count(),
        "conversion to " + name + " on OpenGL ES: input of " + std::to_string(x.element_count()) +
            " elements, output of " + std::to_string(y.element_count()));
  if (x.element_count() == 0) return;
  const Program& program =
      context_.programs().get("convert", name, "#define OP_" + name + "\n", kShader);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs);
}

}  // namespace kiln::gpu_pixel
