#include "backends/gpu_pixel/integer_compare.h"

#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// UNSIGNED reads RGBA32UI, WORD_PAIRS an int64's two words; OP_* picks the comparison. The
// output is the default float texture of bool 0/1.
constexpr const char* kShader = R"(
#if defined(UNSIGNED)
#define IN_SAMPLER usampler2D
#else
#define IN_SAMPLER isampler2D
#endif
uniform highp IN_SAMPLER a;
uniform int a_width;
uniform highp IN_SAMPLER b;
uniform int b_width;
uniform int u_rank;
uniform int u_shape[6];
uniform int u_a_stride[6];
uniform int u_b_stride[6];

float element(int i) {
  int rest = i, ia = 0, ib = 0;
  for (int d = u_rank - 1; d >= 0; --d) {
    int coord = rest % u_shape[d];
    rest /= u_shape[d];
    ia += coord * u_a_stride[d];
    ib += coord * u_b_stride[d];
  }
#if defined(WORD_PAIRS)
  // Element k is words 2k (low) and 2k + 1 (high): the high words decide as signed values, the
  // low ones (int to uint keeps the bits) as unsigned.
  int ah = fetch_element(a, a_width, 2 * ia + 1), bh = fetch_element(b, b_width, 2 * ib + 1);
  uint al = uint(fetch_element(a, a_width, 2 * ia)), bl = uint(fetch_element(b, b_width, 2 * ib));
  bool equal = ah == bh && al == bl;
  bool less = ah < bh || (ah == bh && al < bl);
#else
  bool equal = fetch_element(a, a_width, ia) == fetch_element(b, b_width, ib);
  bool less = fetch_element(a, a_width, ia) < fetch_element(b, b_width, ib);
#endif
#if defined(OP_EQUAL)
  bool r = equal;
#elif defined(OP_LESS)
  bool r = less;
#elif defined(OP_LESS_OR_EQUAL)
  bool r = less || equal;
#elif defined(OP_GREATER)
  bool r = !(less || equal);
#else
  bool r = !less;
#endif
  return r ? 1.0 : 0.0;
}
)";

const char* define_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Equal:
      return "OP_EQUAL";
    case BinaryOp::Less:
      return "OP_LESS";
    case BinaryOp::LessOrEqual:
      return "OP_LESS_OR_EQUAL";
    case BinaryOp::Greater:
      return "OP_GREATER";
    case BinaryOp::GreaterOrEqual:
      return "OP_GREATER_OR_EQUAL";
    default:
      break;
  }
  throw Error(std::string(to_string(op)) + " on OpenGL ES: not an integer comparison");
}

}  // namespace

void IntegerCompare::record(BinaryOp op, DataType dtype, const TextureTensor& a,
                            const Shape& a_shape, const TextureTensor& b, const Shape& b_shape,
                            TextureTensor& c) const {
  const std::string where = std::string(to_string(op)) + " on OpenGL ES";
  check(in_integer_texture(dtype),
        where + ": " + std::string(dtype_name(dtype)) + " is not a dtype of the integer textures");
  const BinaryIndexing ix = binary_indexing(a_shape, b_shape);
  const int64_t words = words_per_element(dtype);
  const TextureFormat format = texture_format_of(dtype, TextureFormat::Rgba32F);
  check(a.format() == format && b.format() == format,
        where + ": the inputs are not " + to_string(format) + " textures");
  check(is_integer(a.format()) && !is_integer(c.format()),
        where + ": the output is not a float texture");
  check(a.element_count() >= a_shape.element_count() * words &&
            b.element_count() >= b_shape.element_count() * words,
        where + ": an input texture holds fewer words than its shape needs");
  check(c.element_count() == ix.count, where + ": the output holds " +
                                           std::to_string(c.element_count()) + " elements, not " +
                                           std::to_string(ix.count));
  if (ix.count == 0) return;
  ProgramVariant variant;
  variant.add(true, define_of(op));
  variant.add(dtype == DataType::UInt32, "UNSIGNED");
  variant.add(words == 2, "WORD_PAIRS");
  const Program& program = context_.programs().get("integer_compare", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"a", &a}, {"b", &b}};
  draw(context_, program, c, inputs, [&] { set_binary_indexing(program, ix); });
}

}  // namespace kiln::gpu_pixel
