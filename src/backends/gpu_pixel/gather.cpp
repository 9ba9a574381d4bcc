#include "backends/gpu_pixel/gather.h"

#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

// 1024 indices as 256 ivec4: a plain int array would take one uniform vector per entry.
constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform int u_inner;    // elements after the axis
uniform int u_indices;  // number of indices
uniform int u_axis;     // the data's axis size
uniform ivec4 u_index[256];

VALUE element(int i) {
  int inner = i % u_inner;
  int t = i / u_inner;
  int j = t % u_indices;
  int outer = t / u_indices;
  int a = u_index[j >> 2][j & 3];
  return fetch_element(x, x_width, (outer * u_axis + a) * u_inner + inner);
}
)";

}  // namespace

bool gather_supported(int64_t index_count) { return index_count <= kGatherMaxIndices; }

Shape gather_shape(const Shape& data_shape, const Shape& indices_shape, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(data_shape.size());
  check(rank > 0, "Gather: the data must have rank 1 or more");
  const int64_t a = normalize_axis(axis, rank, "Gather");
  Shape out;
  for (int64_t d = 0; d < a; ++d) out.push_back(data_shape[d]);
  for (int64_t n : indices_shape) out.push_back(n);
  for (int64_t d = a + 1; d < rank; ++d) out.push_back(data_shape[d]);
  return out;
}

void Gather::record(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> indices,
                    const Shape& indices_shape, int64_t axis, TextureTensor& y) const {
  const Shape out = gather_shape(x_shape, indices_shape, axis);
  const size_t a =
      static_cast<size_t>(normalize_axis(axis, static_cast<int64_t>(x_shape.size()), "Gather"));
  check(static_cast<int64_t>(indices.size()) == indices_shape.element_count(),
        "Gather: " + std::to_string(indices.size()) + " indices for the shape " +
            indices_shape.to_string());
  check(gather_supported(static_cast<int64_t>(indices.size())),
        "Gather on OpenGL ES: " + std::to_string(indices.size()) + " indices, more than " +
            std::to_string(kGatherMaxIndices) + " fit in uniforms; it runs on the CPU");
  check(out.element_count() <= INT32_MAX && x_shape.element_count() <= INT32_MAX,
        "Gather on OpenGL ES: sizes exceed 32-bit indexing");
  check(y.element_count() == out.element_count(),
        "Gather on OpenGL ES: the output holds " + std::to_string(y.element_count()) +
            " elements, not " + std::to_string(out.element_count()));
  const int64_t dim = x_shape[a];
  std::vector<int> index(kGatherMaxIndices, 0);
  for (size_t j = 0; j < indices.size(); ++j) {
    const int64_t i = indices[j];
    check(i >= -dim && i < dim, "Gather: index " + std::to_string(i) + " at position " +
                                    std::to_string(j) + " is out of range for axis " +
                                    std::to_string(a) + " of size " + std::to_string(dim));
    index[j] = static_cast<int>(i < 0 ? i + dim : i);
  }
  if (out.element_count() == 0) return;
  check(x.element_count() >= x_shape.element_count(),
        "Gather on OpenGL ES: the input holds fewer elements than " + x_shape.to_string());
  int64_t inner = 1;
  for (size_t d = a + 1; d < x_shape.size(); ++d) inner *= x_shape[d];
  check(context_.info().max_fragment_uniform_vectors >= kGatherMaxIndices / 4 + 16,
        "Gather on OpenGL ES: the device has too few fragment uniforms for the index array");
  check(x.format() == y.format(), "Gather on OpenGL ES: input and output of two formats");
  const ProgramVariant variant = values_variant(y.format());
  const Program& program = context_.programs().get("gather", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &x}};
  draw(context_, program, y, inputs, [&] {
    program.set("u_inner", static_cast<int>(inner));
    program.set("u_indices", static_cast<int>(indices.size()));
    program.set("u_axis", static_cast<int>(dim));
    // Only the vectors that hold indices: the rest are never read.
    glUniform4iv(program.location("u_index"), static_cast<GLsizei>((indices.size() + 3) / 4),
                 index.data());
  });
}

}  // namespace kiln::gpu_pixel
