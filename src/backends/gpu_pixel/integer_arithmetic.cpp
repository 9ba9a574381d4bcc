#include "backends/gpu_pixel/integer_arithmetic.h"

#include <string>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// The dtype: WORD_PAIRS (int64, RGBA32I), UNSIGNED32 (uint32, RGBA32UI), SMALL with BITS8 or
// BITS16 and SIGNED_SMALL (int8, uint8, int16, uint16 in the float textures), or none (int32,
// RGBA32I). OP_* picks the op. A 64-bit value is uvec2(low word, high word).
constexpr const char* kShader = R"(
#if defined(UNSIGNED32)
#define IN_SAMPLER usampler2D
#elif defined(SMALL)
#define IN_SAMPLER sampler2D
#else
#define IN_SAMPLER isampler2D
#endif
#if defined(BITS8)
#define BITS 8
#elif defined(BITS16)
#define BITS 16
#else
#define BITS 32
#endif
uniform highp IN_SAMPLER a;
uniform int a_width;
uniform highp IN_SAMPLER b;
uniform int b_width;
uniform int u_rank;
uniform int u_shape[6];
uniform int u_a_stride[6];
uniform int u_b_stride[6];

// Element k of t, sign-extended to 64 bits from the signed dtypes, zero-extended from the
// unsigned ones (whose values are then non-negative, so the signed arithmetic below suits both).
uvec2 load(highp IN_SAMPLER t, int width, int k) {
#if defined(WORD_PAIRS)
  return uvec2(uint(fetch_element(t, width, 2 * k)), uint(fetch_element(t, width, 2 * k + 1)));
#elif defined(UNSIGNED32)
  return uvec2(fetch_element(t, width, k), 0u);
#else
  int v = int(fetch_element(t, width, k));  // a small dtype's float is an exact integer
  return uvec2(uint(v), v < 0 ? 0xffffffffu : 0u);
#endif
}

bool is_negative(uvec2 v) { return (v.y >> 31) == 1u; }
uvec2 add64(uvec2 x, uvec2 y) {
  uint lo = x.x + y.x;
  return uvec2(lo, x.y + y.y + (lo < x.x ? 1u : 0u));
}
uvec2 sub64(uvec2 x, uvec2 y) { return uvec2(x.x - y.x, x.y - y.y - (x.x < y.x ? 1u : 0u)); }
uvec2 neg64(uvec2 x) { return sub64(uvec2(0u), x); }
uvec2 abs64(uvec2 x) { return is_negative(x) ? neg64(x) : x; }
bool less64(uvec2 x, uvec2 y) { return int(x.y) < int(y.y) || (x.y == y.y && x.x < y.x); }
bool unsigned_less64(uvec2 x, uvec2 y) { return x.y < y.y || (x.y == y.y && x.x < y.x); }

// The full 64-bit product of two words, from their 16-bit halves.
uvec2 mul32x32(uint x, uint y) {
  uint x0 = x & 0xffffu, x1 = x >> 16, y0 = y & 0xffffu, y1 = y >> 16;
  uint p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
  uint mid = (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);  // below 3 * 2^16
  return uvec2((p00 & 0xffffu) | (mid << 16), p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16));
}
// The low 64 bits of the product: the cross terms reach only the high word.
uvec2 mul64(uvec2 x, uvec2 y) {
  uvec2 p = mul32x32(x.x, y.x);
  p.y += x.x * y.y + x.y * y.x;
  return p;
}

// n / d of unsigned values (d != 0), the remainder in r: one quotient bit per step of restoring
// long division, or one word division when both fit 32 bits. r stays below d <= 2^63, so the
// shifted remainder fits 64 bits.
uvec2 udivmod64(uvec2 n, uvec2 d, out uvec2 r) {
  if (n.y == 0u && d.y == 0u) {
    r = uvec2(n.x % d.x, 0u);
    return uvec2(n.x / d.x, 0u);
  }
  uvec2 q = uvec2(0u);
  r = uvec2(0u);
  for (int i = 63; i >= 0; --i) {
    uint bit = i >= 32 ? (n.y >> uint(i - 32)) & 1u : (n.x >> uint(i)) & 1u;
    r = uvec2((r.x << 1) | bit, (r.y << 1) | (r.x >> 31));
    if (!unsigned_less64(r, d)) {
      r = sub64(r, d);
      if (i >= 32) {
        q.y |= 1u << uint(i - 32);
      } else {
        q.x |= 1u << uint(i);
      }
    }
  }
  return q;
}

// Truncating division on magnitudes; the minimum over -1 gives the minimum back, which is the
// wrapped quotient.
uvec2 div64(uvec2 x, uvec2 y) {
  if (y == uvec2(0u)) return uvec2(0u);
  uvec2 r;
  uvec2 q = udivmod64(abs64(x), abs64(y), r);
  return is_negative(x) != is_negative(y) ? neg64(q) : q;
}

// The remainder with the dividend's sign, moved to the divisor's when `divisor_sign`.
uvec2 mod64(uvec2 x, uvec2 y, bool divisor_sign) {
  if (y == uvec2(0u)) return uvec2(0u);
  uvec2 r;
  udivmod64(abs64(x), abs64(y), r);
  if (is_negative(x)) r = neg64(r);
  if (divisor_sign && r != uvec2(0u) && is_negative(r) != is_negative(y)) r = add64(r, y);
  return r;
}

// x^y by repeated squaring, wrapping. A negative y (signed dtypes) gives the real power as Cast
// makes it an integer: 1 and -1 exactly, the infinite power of 0 the minimum of int64 or int32
// (whose low 8 and 16 bits are 0), every other power truncated to 0.
uvec2 pow64(uvec2 x, uvec2 y) {
  if (is_negative(y)) {
    if (x == uvec2(1u, 0u)) return x;
    if (x == uvec2(0xffffffffu)) return (y.x & 1u) == 1u ? x : uvec2(1u, 0u);
#if defined(WORD_PAIRS)
    if (x == uvec2(0u)) return uvec2(0u, 0x80000000u);
#else
    if (x == uvec2(0u)) return uvec2(0x80000000u, 0xffffffffu);
#endif
    return uvec2(0u);
  }
  uvec2 result = uvec2(1u, 0u);
  for (int i = 0; i < 64 && y != uvec2(0u); ++i) {
    if ((y.x & 1u) == 1u) result = mul64(result, x);
    x = mul64(x, x);
    y = uvec2((y.x >> 1) | (y.y << 31), y.y >> 1);
  }
  return result;
}

// BitShift takes the unsigned dtypes (32 bits at most); a shift by the width or more gives 0.
uvec2 shift(uvec2 x, uvec2 s, bool left) {
  if (s.y != 0u || s.x >= uint(BITS)) return uvec2(0u);
  return uvec2(left ? x.x << s.x : x.x >> s.x, 0u);
}

uvec2 apply(uvec2 x, uvec2 y) {
#if defined(OP_ADD)
  return add64(x, y);
#elif defined(OP_SUB)
  return sub64(x, y);
#elif defined(OP_MUL)
  return mul64(x, y);
#elif defined(OP_DIV)
  return div64(x, y);
#elif defined(OP_MOD)
  return mod64(x, y, true);
#elif defined(OP_FMOD)
  return mod64(x, y, false);
#elif defined(OP_POW)
  return pow64(x, y);
#elif defined(OP_MAX)
  return less64(x, y) ? y : x;
#elif defined(OP_MIN)
  return less64(x, y) ? x : y;
#elif defined(OP_AND)
  return x & y;
#elif defined(OP_OR)
  return x | y;
#elif defined(OP_XOR)
  return x ^ y;
#elif defined(OP_NOT)
  return ~x;
#elif defined(OP_SHIFT_LEFT)
  return shift(x, y, true);
#else
  return shift(x, y, false);
#endif
}

uvec2 element_words(int i) {
  int rest = i, ia = 0, ib = 0;
  for (int d = u_rank - 1; d >= 0; --d) {
    int coord = rest % u_shape[d];
    rest /= u_shape[d];
    ia += coord * u_a_stride[d];
    ib += coord * u_b_stride[d];
  }
  return apply(load(a, a_width, ia), load(b, b_width, ib));
}

#if defined(WORD_PAIRS)
// Texel t holds the words of elements 2t and 2t + 1.
void main() {
  ivec4 e = output_elements();
  ivec4 v = ivec4(0);
  if (e.x < u_out_count) v.xy = ivec2(element_words(e.x >> 1));
  if (e.z < u_out_count) v.zw = ivec2(element_words(e.z >> 1));
  out_texel = v;
}
#else
// The low BITS bits of the result: the dtype's wrapped value.
VALUE element(int i) {
  uvec2 w = element_words(i);
#if defined(UNSIGNED32)
  return w.x;
#elif !defined(SMALL)
  return int(w.x);
#elif defined(SIGNED_SMALL)
  return float((int(w.x) << (32 - BITS)) >> (32 - BITS));
#else
  return float(w.x & ((1u << uint(BITS)) - 1u));
#endif
}
#endif
)";

const char* define_of(IntegerOp op) {
  switch (op) {
    case IntegerOp::Add:
      return "OP_ADD";
    case IntegerOp::Sub:
      return "OP_SUB";
    case IntegerOp::Mul:
      return "OP_MUL";
    case IntegerOp::Div:
      return "OP_DIV";
    case IntegerOp::Mod:
      return "OP_MOD";
    case IntegerOp::FMod:
      return "OP_FMOD";
    case IntegerOp::Pow:
      return "OP_POW";
    case IntegerOp::Max:
      return "OP_MAX";
    case IntegerOp::Min:
      return "OP_MIN";
    case IntegerOp::BitwiseAnd:
      return "OP_AND";
    case IntegerOp::BitwiseOr:
      return "OP_OR";
    case IntegerOp::BitwiseXor:
      return "OP_XOR";
    case IntegerOp::BitwiseNot:
      return "OP_NOT";
    case IntegerOp::BitShiftLeft:
      return "OP_SHIFT_LEFT";
    case IntegerOp::BitShiftRight:
      return "OP_SHIFT_RIGHT";
  }
  throw Error("OpenGL ES integer op: unknown op code");
}

bool is_small(DataType dtype) {
  return dtype == DataType::Int8 || dtype == DataType::UInt8 || dtype == DataType::Int16 ||
         dtype == DataType::UInt16;
}

}  // namespace

const char* to_string(IntegerOp op) {
  switch (op) {
    case IntegerOp::Add:
      return "Add";
    case IntegerOp::Sub:
      return "Sub";
    case IntegerOp::Mul:
      return "Mul";
    case IntegerOp::Div:
      return "Div";
    case IntegerOp::Mod:
    case IntegerOp::FMod:
      return "Mod";
    case IntegerOp::Pow:
      return "Pow";
    case IntegerOp::Max:
      return "Max";
    case IntegerOp::Min:
      return "Min";
    case IntegerOp::BitwiseAnd:
      return "BitwiseAnd";
    case IntegerOp::BitwiseOr:
      return "BitwiseOr";
    case IntegerOp::BitwiseXor:
      return "BitwiseXor";
    case IntegerOp::BitwiseNot:
      return "BitwiseNot";
    case IntegerOp::BitShiftLeft:
    case IntegerOp::BitShiftRight:
      return "BitShift";
  }
  return "unknown";
}

bool integer_arithmetic_dtype(DataType dtype) {
  return in_integer_texture(dtype) || is_small(dtype);
}

void IntegerArithmetic::record(IntegerOp op, DataType dtype, const TextureTensor& a,
                               const Shape& a_shape, const TextureTensor& b, const Shape& b_shape,
                               TextureTensor& c) const {
  const std::string where = std::string(to_string(op)) + " on OpenGL ES";
  check(integer_arithmetic_dtype(dtype),
        where + ": no integer kernel for " + std::string(dtype_name(dtype)) + " tensors");
  const BinaryIndexing ix = binary_indexing(a_shape, b_shape);
  const int64_t words = words_per_element(dtype);
  // The small dtypes live in the float textures (of whichever float format the context has).
  auto in_its_texture = [&](const TextureTensor& t) {
    return in_integer_texture(dtype) ? t.format() == texture_format_of(dtype, t.format())
                                     : !is_integer(t.format());
  };
  check(in_its_texture(a) && in_its_texture(b) && in_its_texture(c),
        where + ": a tensor is not in the texture " + std::string(dtype_name(dtype)) + " lives in");
  check(a.element_count() >= a_shape.element_count() * words &&
            b.element_count() >= b_shape.element_count() * words,
        where + ": an input texture holds fewer words than its shape needs");
  check(c.element_count() == ix.count * words,
        where + ": the output holds " + std::to_string(c.element_count()) + " words, not " +
            std::to_string(ix.count * words));
  if (ix.count == 0) return;
  ProgramVariant variant = values_variant(c.format());
  variant.add(true, define_of(op));
  variant.add(words == 2, "WORD_PAIRS");
  variant.add(dtype == DataType::UInt32, "UNSIGNED32");
  variant.add(is_small(dtype), "SMALL");
  variant.add(dtype == DataType::Int8 || dtype == DataType::UInt8, "BITS8");
  variant.add(dtype == DataType::Int16 || dtype == DataType::UInt16, "BITS16");
  variant.add(dtype == DataType::Int8 || dtype == DataType::Int16, "SIGNED_SMALL");
  const std::string body = std::string(kShader) + (words == 2 ? "" : kElementMain);
  const Program& program =
      context_.programs().get("integer_arithmetic", variant.name, variant.defines, body);
  const DrawInput inputs[] = {{"a", &a}, {"b", &b}};
  draw(context_, program, c, inputs, [&] { set_binary_indexing(program, ix); });
}

}  // namespace kiln::gpu_pixel
