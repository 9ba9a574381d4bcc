#include "backends/gpu_pixel/integer_cast.h"

#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Source: UNSIGNED_IN (RGBA32UI) or signed words, WORD_PAIRS_IN for an int64's two. Target:
// TO_<NAME>; the integer targets build with values_variant, so element() returns their words.
constexpr const char* kShader = R"(
#if defined(UNSIGNED_IN)
uniform highp usampler2D x;
#else
uniform highp isampler2D x;
#endif
uniform int x_width;

// Word k of the source as bits (int to uint keeps them).
uint word(int k) { return uint(fetch_element(x, x_width, k)); }

// The index of v's highest set bit (v != 0): GLSL ES 3.00 has no findMSB.
int highest_bit(uint v) {
  int n = 0;
  if (v >= 0x10000u) { v >>= 16; n += 16; }
  if (v >= 0x100u) { v >>= 8; n += 8; }
  if (v >= 0x10u) { v >>= 4; n += 4; }
  if (v >= 0x4u) { v >>= 2; n += 2; }
  if (v >= 0x2u) n += 1;
  return n;
}

// The float nearest (ties to even) to the 64-bit magnitude hi:lo, negated when `negative`.
float magnitude_to_float(uint hi, uint lo, bool negative) {
  if (hi == 0u && lo == 0u) return 0.0;
  int msb = hi != 0u ? 32 + highest_bit(hi) : highest_bit(lo);
  int shift = msb - 23;  // bits below the 24 the float keeps
  uint m;
  bool round_bit = false, sticky = false;
  if (shift <= 0) {
    m = lo << uint(-shift);
  } else {
    m = shift >= 32 ? hi >> uint(shift - 32) : (hi << uint(32 - shift)) | (lo >> uint(shift));
    int r = shift - 1;  // the highest dropped bit
    if (r >= 32) {
      round_bit = ((hi >> uint(r - 32)) & 1u) == 1u;
      sticky = (hi & ((1u << uint(r - 32)) - 1u)) != 0u || lo != 0u;
    } else {
      round_bit = ((lo >> uint(r)) & 1u) == 1u;
      sticky = (lo & ((1u << uint(r)) - 1u)) != 0u;
    }
  }
  if (round_bit && (sticky || (m & 1u) == 1u)) {
    m += 1u;
    if (m == (1u << 24)) {
      m >>= 1;
      msb += 1;
    }
  }
  uint bits = (uint(msb + 127) << 23) | (m & 0x7fffffu);
  return uintBitsToFloat(negative ? bits | 0x80000000u : bits);
}

VALUE element(int e) {
#if defined(TO_INT64)
  int i = e >> 1;
#else
  int i = e;
#endif
#if defined(WORD_PAIRS_IN)
  uint lo = word(2 * i), hi = word(2 * i + 1);
#elif defined(UNSIGNED_IN)
  uint lo = word(i), hi = 0u;
#else
  uint lo = word(i), hi = int(word(i)) < 0 ? 0xffffffffu : 0u;
#endif
#if defined(TO_INT64)
  return int((e & 1) == 1 ? hi : lo);
#elif defined(TO_INT32)
  return int(lo);
#elif defined(TO_UINT32)
  return lo;
#elif defined(TO_BOOL)
  return (lo != 0u || hi != 0u) ? 1.0 : 0.0;
#elif defined(TO_INT8)
  return float((int(lo) << 24) >> 24);
#elif defined(TO_UINT8)
  return float(lo & 0xffu);
#elif defined(TO_INT16)
  return float((int(lo) << 16) >> 16);
#elif defined(TO_UINT16)
  return float(lo & 0xffffu);
#else  // TO_FLOAT32
  bool negative = int(hi) < 0;
  if (negative) {  // the two's complement magnitude
    lo = ~lo + 1u;
    hi = ~hi + (lo == 0u ? 1u : 0u);
  }
  return magnitude_to_float(hi, lo, negative);
#endif
}
)";

const char* target_define(DataType to) {
  switch (to) {
    case DataType::Int64:
      return "TO_INT64";
    case DataType::Int32:
      return "TO_INT32";
    case DataType::UInt32:
      return "TO_UINT32";
    case DataType::Bool:
      return "TO_BOOL";
    case DataType::Int8:
      return "TO_INT8";
    case DataType::UInt8:
      return "TO_UINT8";
    case DataType::Int16:
      return "TO_INT16";
    case DataType::UInt16:
      return "TO_UINT16";
    case DataType::Float32:
      return "TO_FLOAT32";
    default:
      return nullptr;
  }
}

}  // namespace

bool integer_cast_supported(DataType from, DataType to) {
  return in_integer_texture(from) && target_define(to) != nullptr;
}

void IntegerCast::record(DataType from, DataType to, const TextureTensor& x,
                         TextureTensor& y) const {
  const std::string where = "Cast from " + std::string(dtype_name(from)) + " to " +
                            std::string(dtype_name(to)) + " on OpenGL ES";
  check(integer_cast_supported(from, to), where + ": not a cast this kernel takes");
  check(x.format() == texture_format_of(from, TextureFormat::Rgba32F),
        where + ": the input is not in its integer texture");
  check(is_integer(y.format()) == in_integer_texture(to) &&
            (!in_integer_texture(to) || y.format() == texture_format_of(to, y.format())),
        where + ": the output is not in the texture its dtype lives in");
  check(x.element_count() / words_per_element(from) == y.element_count() / words_per_element(to),
        where + ": input and output hold different element counts");
  if (y.element_count() == 0) return;
  ProgramVariant variant = values_variant(y.format());
  variant.add(true, target_define(to));
  variant.add(from == DataType::UInt32, "UNSIGNED_IN");
  variant.add(from == DataType::Int64, "WORD_PAIRS_IN");
  const Program& program = context_.programs().get("integer_cast", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs);
}

}  // namespace kiln::gpu_pixel
