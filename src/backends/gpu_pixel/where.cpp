#include "backends/gpu_pixel/where.h"

#include <array>
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

constexpr int kMaxRank = 6;

constexpr const char* kShader = R"(
uniform highp sampler2D c;
uniform int c_width;
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform highp VALUE_SAMPLER y;
uniform int y_width;
uniform int u_rank;
uniform int u_shape[6];
uniform int u_c_stride[6];
uniform int u_x_stride[6];
uniform int u_y_stride[6];

void main() {
  ivec4 index = output_elements();
  VALUE4 r = VALUE4(0);
  for (int k = 0; k < 4; ++k) {
    int i = index[k];
    if (i >= u_out_count) break;
    int rest = i, ic = 0, ix = 0, iy = 0;
    for (int d = u_rank - 1; d >= 0; --d) {
      int coord = rest % u_shape[d];
      rest /= u_shape[d];
      ic += coord * u_c_stride[d];
      ix += coord * u_x_stride[d];
      iy += coord * u_y_stride[d];
    }
    r[k] = fetch_element(c, c_width, ic) != 0.0 ? fetch_element(x, x_width, ix)
                                                 : fetch_element(y, y_width, iy);
  }
  out_texel = r;
}
)";

struct Indexing {
  int rank = 0;
  int count = 0;
  std::array<int, kMaxRank> shape{}, c{}, x{}, y{};
};

Indexing where_indexing(const Shape& c, const Shape& x, const Shape& y) {
  const std::string where = "Where on OpenGL ES";
  const Shape out = broadcast_shapes(broadcast_shapes(c, x, where), y, where);
  check(out.element_count() <= INT32_MAX,
        where + ": " + std::to_string(out.element_count()) + " elements exceed 32-bit indexing");
  const Shape strides[] = {broadcast_strides(c, out), broadcast_strides(x, out),
                           broadcast_strides(y, out)};
  // As binary_indexing: size-1 dimensions dropped, runs contiguous in every input merged.
  struct Dim {
    int64_t n, s[3];
  };
  std::vector<Dim> dims;
  for (size_t d = 0; d < out.size(); ++d) {
    const Dim cur{out[d], {strides[0][d], strides[1][d], strides[2][d]}};
    if (cur.n == 1) continue;
    bool merges = !dims.empty();
    for (int k = 0; k < 3 && merges; ++k) merges = dims.back().s[k] == cur.s[k] * cur.n;
    if (merges) {
      dims.back() = {dims.back().n * cur.n, {cur.s[0], cur.s[1], cur.s[2]}};
    } else {
      dims.push_back(cur);
    }
  }
  check(dims.size() <= kMaxRank,
        where + ": output " + out.to_string() + " has more than 6 dimensions after merging");
  Indexing ix;
  ix.count = static_cast<int>(out.element_count());
  for (const Dim& d : dims) {
    // Strides fit: each is below its input's element count, at most the output's.
    ix.shape[ix.rank] = static_cast<int>(d.n);
    ix.c[ix.rank] = static_cast<int>(d.s[0]);
    ix.x[ix.rank] = static_cast<int>(d.s[1]);
    ix.y[ix.rank] = static_cast<int>(d.s[2]);
    ++ix.rank;
  }
  return ix;
}

}  // namespace

void Where::record(const WhereOperand& condition, const WhereOperand& x, const WhereOperand& y,
                   TextureTensor& out) const {
  const Indexing ix = where_indexing(condition.shape, x.shape, y.shape);
  for (const WhereOperand* in : {&condition, &x, &y}) {
    check(in->texture->element_count() >= in->shape.element_count(),
          "Where on OpenGL ES: an input texture holds fewer elements than its shape");
  }
  check(out.element_count() == ix.count, "Where on OpenGL ES: the output holds " +
                                             std::to_string(out.element_count()) +
                                             " elements, not " + std::to_string(ix.count));
  if (ix.count == 0) return;
  check(x.texture->format() == out.format() && y.texture->format() == out.format(),
        "Where on OpenGL ES: x, y and the output of two formats");
  const ProgramVariant variant = values_variant(out.format());
  const Program& program = context_.programs().get(
      "where", variant.name.empty() ? "where" : variant.name, variant.defines, kShader);
  const DrawInput inputs[] = {{"c", condition.texture}, {"x", x.texture}, {"y", y.texture}};
  draw(context_, program, out, inputs, [&] {
    program.set("u_rank", ix.rank);
    program.set("u_shape", std::span<const int>(ix.shape));
    program.set("u_c_stride", std::span<const int>(ix.c));
    program.set("u_x_stride", std::span<const int>(ix.x));
    program.set("u_y_stride", std::span<const int>(ix.y));
  });
}

}  // namespace kiln::gpu_pixel
