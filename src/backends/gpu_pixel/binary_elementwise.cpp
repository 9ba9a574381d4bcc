#include "backends/gpu_pixel/binary_elementwise.h"

#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

// OP_* selects the op at compile time: one small program per op, as each is used.
constexpr const char* kShader = R"(
uniform highp sampler2D a;
uniform int a_width;
uniform highp sampler2D b;
uniform int b_width;
uniform int u_rank;
uniform int u_shape[6];
uniform int u_a_stride[6];
uniform int u_b_stride[6];

// ONNX Pow follows C's pow: a negative base works with an integral exponent. GLSL's pow is
// undefined for x < 0, and for x == 0 with y <= 0.
float onnx_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) return 1.0;  // even with a NaN operand, as in C
  if (isnan(x) || isnan(y)) return nan_value();
  if (x == 0.0) {
    // An odd integral power keeps the zero's sign: pow(-0, 3) = -0, pow(-0, -3) = -inf.
    bool odd = y == trunc(y) && mod(y, 2.0) == 1.0;
    float r = y > 0.0 ? 0.0 : inf_value();
    return odd && floatBitsToUint(x) != 0u ? -r : r;
  }
  if (x > 0.0) return pow(x, y);
  if (y != trunc(y)) return nan_value();
  float r = pow(-x, y);
  return mod(y, 2.0) == 0.0 ? r : -r;
}

// C's fmod, bit for bit: the remainder keeps x's sign and is exact, where x - trunc(x / y) y
// rounds. Long division on the integer significands (as C libraries do it), so subnormal operands
// and results come out right even where the device flushes subnormal float arithmetic.
float onnx_fmod(float x, float y) {
  uint ux = floatBitsToUint(x), uy = floatBitsToUint(y);
  uint sign = ux & 0x80000000u;
  ux &= 0x7fffffffu;
  uy &= 0x7fffffffu;
  if (uy == 0u || uy > 0x7f800000u || ux >= 0x7f800000u) return nan_value();
  if (ux < uy) return x;  // |x| < |y|, y = inf included
  if (ux == uy) return uintBitsToFloat(sign);  // a signed zero
  // Significands with the implicit bit, exponents where the subnormals' are their true ones. A
  // significand below 2^24 converts to float exactly: its exponent is the index of its top bit.
  int ex = int(ux >> 23), ey = int(uy >> 23);
  uint mx = ux & 0x7fffffu, my = uy & 0x7fffffu;
  if (ex == 0) {
    int shift = 23 - exponent_of(float(mx));
    mx <<= uint(shift);
    ex = 1 - shift;
  } else {
    mx |= 0x800000u;
  }
  if (ey == 0) {
    int shift = 23 - exponent_of(float(my));
    my <<= uint(shift);
    ey = 1 - shift;
  } else {
    my |= 0x800000u;
  }
  // mx 2^ex mod my 2^ey, one quotient bit per exponent step; mx stays below 2 my < 2^25.
  for (int k = ex - ey; k > 0; --k) {
    if (mx >= my) mx -= my;
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  if (mx == 0u) return uintBitsToFloat(sign);
  int shift = 23 - exponent_of(float(mx));
  mx <<= uint(shift);
  ey -= shift;
  // Back to float bits at exponent ey: normal, or shifted down into a subnormal.
  uint bits = ey > 0 ? (uint(ey) << 23) | (mx & 0x7fffffu) : mx >> uint(1 - ey);
  return uintBitsToFloat(sign | bits);
}

float apply(float x, float y) {
#if defined(OP_ADD)
  return x + y;
#elif defined(OP_SUB)
  return x - y;
#elif defined(OP_MUL)
  return x * y;
#elif defined(OP_DIV)
  return x / y;
#elif defined(OP_POW)
  return onnx_pow(x, y);
#elif defined(OP_MAX)
  return (x > y || isnan(x)) ? x : y;  // NaN propagates, as on the CPU
#elif defined(OP_MIN)
  return (x < y || isnan(x)) ? x : y;
#elif defined(OP_PRELU)
  return x < 0.0 ? x * y : x;
#elif defined(OP_MOD)
  return onnx_fmod(x, y);
#elif defined(OP_EQUAL)
  return x == y ? 1.0 : 0.0;  // false for NaN, as every ordered comparison below
#elif defined(OP_LESS)
  return x < y ? 1.0 : 0.0;
#elif defined(OP_LESS_OR_EQUAL)
  return x <= y ? 1.0 : 0.0;
#elif defined(OP_GREATER)
  return x > y ? 1.0 : 0.0;
#elif defined(OP_GREATER_OR_EQUAL)
  return x >= y ? 1.0 : 0.0;
#elif defined(OP_AND)
  return (x != 0.0 && y != 0.0) ? 1.0 : 0.0;
#elif defined(OP_OR)
  return (x != 0.0 || y != 0.0) ? 1.0 : 0.0;
#elif defined(OP_XOR)
  return ((x != 0.0) != (y != 0.0)) ? 1.0 : 0.0;
#endif
}

void main() {
#if defined(SAME_LAYOUT)
  // Equal shapes: element i of c is element i of a and b, so whole texels line up.
  int t = output_texel();
  vec4 x = fetch_texel(a, a_width, t), y = fetch_texel(b, b_width, t);
  out_texel = finish_texel(
      vec4(apply(x.x, y.x), apply(x.y, y.y), apply(x.z, y.z), apply(x.w, y.w)));
#else
  ivec4 index = output_elements();
  vec4 r = vec4(0.0);
  for (int k = 0; k < 4; ++k) {
    int i = index[k];
    if (i >= u_out_count) break;
    int rest = i, ia = 0, ib = 0;
    for (int d = u_rank - 1; d >= 0; --d) {
      int coord = rest % u_shape[d];
      rest /= u_shape[d];
      ia += coord * u_a_stride[d];
      ib += coord * u_b_stride[d];
    }
    r[k] = apply(fetch_element(a, a_width, ia), fetch_element(b, b_width, ib));
  }
  out_texel = finish_texel(r);
#endif
}
)";

const char* define_of(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "#define OP_ADD\n";
    case BinaryOp::Sub:
      return "#define OP_SUB\n";
    case BinaryOp::Mul:
      return "#define OP_MUL\n";
    case BinaryOp::Div:
      return "#define OP_DIV\n";
    case BinaryOp::Pow:
      return "#define OP_POW\n";
    case BinaryOp::Max:
      return "#define OP_MAX\n";
    case BinaryOp::Min:
      return "#define OP_MIN\n";
    case BinaryOp::PRelu:
      return "#define OP_PRELU\n";
    case BinaryOp::Mod:
      return "#define OP_MOD\n";
    case BinaryOp::Equal:
      return "#define OP_EQUAL\n";
    case BinaryOp::Less:
      return "#define OP_LESS\n";
    case BinaryOp::LessOrEqual:
      return "#define OP_LESS_OR_EQUAL\n";
    case BinaryOp::Greater:
      return "#define OP_GREATER\n";
    case BinaryOp::GreaterOrEqual:
      return "#define OP_GREATER_OR_EQUAL\n";
    case BinaryOp::And:
      return "#define OP_AND\n";
    case BinaryOp::Or:
      return "#define OP_OR\n";
    case BinaryOp::Xor:
      return "#define OP_XOR\n";
  }
  throw Error("OpenGL ES binary op: unknown op code");
}

}  // namespace

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "Add";
    case BinaryOp::Sub:
      return "Sub";
    case BinaryOp::Mul:
      return "Mul";
    case BinaryOp::Div:
      return "Div";
    case BinaryOp::Pow:
      return "Pow";
    case BinaryOp::Max:
      return "Max";
    case BinaryOp::Min:
      return "Min";
    case BinaryOp::PRelu:
      return "PRelu";
    case BinaryOp::Mod:
      return "Mod";
    case BinaryOp::Equal:
      return "Equal";
    case BinaryOp::Less:
      return "Less";
    case BinaryOp::LessOrEqual:
      return "LessOrEqual";
    case BinaryOp::Greater:
      return "Greater";
    case BinaryOp::GreaterOrEqual:
      return "GreaterOrEqual";
    case BinaryOp::And:
      return "And";
    case BinaryOp::Or:
      return "Or";
    case BinaryOp::Xor:
      return "Xor";
  }
  return "unknown";
}

void set_binary_indexing(const Program& program, const BinaryIndexing& ix) {
  program.set("u_rank", ix.rank);
  program.set("u_shape", std::span<const int>(ix.shape));
  program.set("u_a_stride", std::span<const int>(ix.a_stride));
  program.set("u_b_stride", std::span<const int>(ix.b_stride));
}

BinaryIndexing binary_indexing(const Shape& a, const Shape& b) {
  const std::string where = "binary op on OpenGL ES";
  const Shape out = broadcast_shapes(a, b, where);
  const Shape sa = broadcast_strides(a, out);
  const Shape sb = broadcast_strides(b, out);
  check(out.element_count() <= INT32_MAX,
        where + ": " + std::to_string(out.element_count()) + " elements exceed 32-bit indexing");
  BinaryIndexing ix;
  ix.count = static_cast<int>(out.element_count());
  // Size-1 output dimensions add nothing to any index, and a dimension contiguous after its
  // predecessor in both inputs merges with it: both keep higher ranks within 6.
  struct Dim {
    int64_t n, a, b;
  };
  std::vector<Dim> dims;
  for (size_t d = 0; d < out.size(); ++d) {
    const Dim c{out[d], sa[d], sb[d]};
    if (c.n == 1) continue;
    if (!dims.empty() && dims.back().a == c.a * c.n && dims.back().b == c.b * c.n) {
      dims.back() = {dims.back().n * c.n, c.a, c.b};
    } else {
      dims.push_back(c);
    }
  }
  check(dims.size() <= kBinaryMaxRank,
        where + ": output " + out.to_string() + " has more than 6 dimensions after merging");
  for (const Dim& d : dims) {
    ix.shape[ix.rank] = static_cast<int>(d.n);
    // Strides fit: each is below its input's element count, at most the output's.
    ix.a_stride[ix.rank] = static_cast<int>(d.a);
    ix.b_stride[ix.rank] = static_cast<int>(d.b);
    ++ix.rank;
  }
  return ix;
}

void BinaryElementwise::record(BinaryOp op, const TextureTensor& a, const Shape& a_shape,
                               const TextureTensor& b, const Shape& b_shape,
                               TextureTensor& c) const {
  const BinaryIndexing ix = binary_indexing(a_shape, b_shape);
  const std::string where = std::string(to_string(op)) + " on OpenGL ES";
  check(
      a.element_count() >= a_shape.element_count() && b.element_count() >= b_shape.element_count(),
      where + ": an input texture holds fewer elements than its shape");
  check(c.element_count() == ix.count, where + ": the output holds " +
                                           std::to_string(c.element_count()) + " elements, not " +
                                           std::to_string(ix.count));
  if (ix.count == 0) return;
  // Equal shapes (one contiguous dimension after merging, stride 1 in both) share the texture
  // layout: the texel-for-texel variant skips all index math.
  const bool same_layout = ix.rank <= 1 && ix.a_stride[0] == ix.b_stride[0] &&
                           (ix.rank == 0 || ix.a_stride[0] == 1) && a.width() == c.width() &&
                           b.width() == c.width();
  const std::string variant = std::string(to_string(op)) + (same_layout ? "/same" : "");
  const std::string defines =
      std::string(define_of(op)) + (same_layout ? "#define SAME_LAYOUT\n" : "");
  const Program& program = context_.programs().get("binary_elementwise", variant, defines, kShader);
  const DrawInput inputs[] = {{"a", &a}, {"b", &b}};
  draw(context_, program, c, inputs, [&] { set_binary_indexing(program, ix); });
}

}  // namespace kiln::gpu_pixel
