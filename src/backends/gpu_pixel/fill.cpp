#include "backends/gpu_pixel/fill.h"

#include <cstring>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {

const char* const kConstantValueShader = R"(
#if defined(KILN_INT_VALUES) || defined(KILN_UINT_VALUES)
uniform int u_words[2];
uniform int u_word_mask;
// int to uint keeps the bits.
VALUE constant_value(int i) { return VALUE(u_words[i & u_word_mask]); }
#else
uniform float u_value;
float constant_value(int i) { return u_value; }
#endif
)";

namespace {

constexpr const char* kShader = R"(
VALUE element(int e) { return constant_value(e); }
)";

}  // namespace

ConstantValue ConstantValue::of(const Tensor& one_element) {
  check(one_element.element_count() == 1, "OpenGL ES constant: not one element");
  ConstantValue c;
  if (!in_integer_texture(one_element.dtype())) {
    c.value = to_texel_values(one_element)[0];
    return c;
  }
  // An int64's bytes are its low word, then its high one (texel_dtype.h).
  std::memcpy(c.words.data(), one_element.raw_data(), dtype_size(one_element.dtype()));
  c.word_mask = words_per_element(one_element.dtype()) - 1;
  return c;
}

void set_constant_value(const Program& program, const ConstantValue& value) {
  program.set("u_value", value.value);
  program.set("u_words", std::span<const int>(value.words));
  program.set("u_word_mask", value.word_mask);
}

void Fill::record(const ConstantValue& value, TextureTensor& y) const {
  const ProgramVariant variant = values_variant(y.format());
  const Program& program =
      context_.programs().get("fill", variant.name, variant.defines,
                              std::string(kConstantValueShader) + kShader + kElementMain);
  draw(context_, program, y, {}, [&] { set_constant_value(program, value); });
}

}  // namespace kiln::gpu_pixel
