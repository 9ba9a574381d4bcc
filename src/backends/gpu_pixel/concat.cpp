#include "backends/gpu_pixel/concat.h"

#include "opdefs/concat.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x0;
uniform highp VALUE_SAMPLER x1;
uniform highp VALUE_SAMPLER x2;
uniform highp VALUE_SAMPLER x3;
uniform highp VALUE_SAMPLER x4;
uniform highp VALUE_SAMPLER x5;
uniform highp VALUE_SAMPLER x6;
uniform highp VALUE_SAMPLER x7;
uniform int x0_width;
uniform int x1_width;
uniform int x2_width;
uniform int x3_width;
uniform int x4_width;
uniform int x5_width;
uniform int x6_width;
uniform int x7_width;
uniform int u_inputs;
uniform int u_inner;       // elements after the axis
uniform int u_axis;        // the output's axis size
uniform int u_begin[9];    // input j covers axis coordinates [u_begin[j], u_begin[j + 1])

VALUE element(int i) {
  int inner = i % u_inner;
  int t = i / u_inner;
  int a = t % u_axis;
  int outer = t / u_axis;
  int j = 0;
  while (j + 1 < u_inputs && a >= u_begin[j + 1]) ++j;
  int size = u_begin[j + 1] - u_begin[j];
  int s = (outer * size + a - u_begin[j]) * u_inner + inner;
  if (j == 0) return fetch_element(x0, x0_width, s);
  if (j == 1) return fetch_element(x1, x1_width, s);
  if (j == 2) return fetch_element(x2, x2_width, s);
  if (j == 3) return fetch_element(x3, x3_width, s);
  if (j == 4) return fetch_element(x4, x4_width, s);
  if (j == 5) return fetch_element(x5, x5_width, s);
  if (j == 6) return fetch_element(x6, x6_width, s);
  return fetch_element(x7, x7_width, s);
}
)";

constexpr const char* kSamplers[kConcatInputsPerDraw] = {"x0", "x1", "x2", "x3",
                                                         "x4", "x5", "x6", "x7"};

}  // namespace

void Concat::record(std::span<const TextureTensor* const> ins, std::span<const Shape> shapes,
                    int64_t axis, TextureTensor& y) const {
  check(ins.size() == shapes.size(), "Concat: textures and shapes differ in number");
  const Shape out = concat_output_shape(shapes, axis, "Concat");
  const size_t a =
      static_cast<size_t>(normalize_axis(axis, static_cast<int64_t>(out.size()), "Concat"));
  check(out.element_count() <= INT32_MAX,
        "Concat on OpenGL ES: " + std::to_string(out.element_count()) +
            " elements exceed 32-bit indexing");
  check(y.element_count() == out.element_count(),
        "Concat on OpenGL ES: the output holds " + std::to_string(y.element_count()) +
            " elements, not " + std::to_string(out.element_count()));
  if (out.element_count() == 0) return;

  // Empty inputs hold no elements (and no texture); the rest keep their order.
  std::vector<const TextureTensor*> tensors;
  std::vector<Shape> kept;
  for (size_t j = 0; j < ins.size(); ++j) {
    if (shapes[j].element_count() == 0) continue;
    check(ins[j] != nullptr && ins[j]->element_count() >= shapes[j].element_count(),
          "Concat on OpenGL ES: input " + std::to_string(j) + " holds fewer elements than " +
              shapes[j].to_string());
    tensors.push_back(ins[j]);
    kept.push_back(shapes[j]);
  }

  // Too many for one draw: the leading groups concatenate into temporaries first.
  if (tensors.size() > kConcatInputsPerDraw) {
    std::vector<TextureTensor> groups;
    std::vector<const TextureTensor*> next;
    std::vector<Shape> next_shapes;
    for (size_t first = 0; first < tensors.size(); first += kConcatInputsPerDraw) {
      const size_t n = std::min<size_t>(kConcatInputsPerDraw, tensors.size() - first);
      const std::span<const Shape> group_shapes(kept.data() + first, n);
      const Shape group_shape =
          concat_output_shape(group_shapes, static_cast<int64_t>(a), "Concat");
      if (n == 1) {
        next.push_back(tensors[first]);
      } else {
        groups.emplace_back(context_, group_shape.element_count(), y.format());
        record(std::span(tensors.data() + first, n), group_shapes, static_cast<int64_t>(a),
               groups.back());
        next.push_back(nullptr);  // filled below: `groups` may still reallocate
      }
      next_shapes.push_back(group_shape);
    }
    for (size_t k = 0, g = 0; k < next.size(); ++k) {
      if (next[k] == nullptr) next[k] = &groups[g++];
    }
    record(next, next_shapes, static_cast<int64_t>(a), y);
    return;
  }

  int64_t inner = 1;
  for (size_t d = a + 1; d < out.size(); ++d) inner *= out[d];
  int begin[kConcatInputsPerDraw + 1] = {};
  std::vector<DrawInput> inputs;
  for (size_t j = 0; j < tensors.size(); ++j) {
    begin[j + 1] = begin[j] + static_cast<int>(kept[j][a]);
    inputs.push_back({kSamplers[j], tensors[j]});
  }
  for (size_t j = tensors.size(); j < kConcatInputsPerDraw; ++j) {
    begin[j + 1] = begin[j];
  }
  for (const TextureTensor* t : tensors)
    check(t->format() == y.format(), "Concat on OpenGL ES: inputs and output of two formats");
  const ProgramVariant variant = values_variant(y.format());
  const Program& program = context_.programs().get("concat", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  draw(context_, program, y, inputs, [&] {
    // Samplers past u_inputs are never read; a previous draw may have left them on units that
    // now hold nothing, so they go back to unit 0.
    for (size_t j = tensors.size(); j < kConcatInputsPerDraw; ++j) program.set(kSamplers[j], 0);
    program.set("u_inputs", static_cast<int>(tensors.size()));
    program.set("u_inner", static_cast<int>(inner));
    program.set("u_axis", static_cast<int>(out[a]));
    program.set("u_begin", std::span<const int>(begin));
  });
}

}  // namespace kiln::gpu_pixel
