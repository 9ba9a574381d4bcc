// ConstantOfShape on a texture tensor: every element one value, one draw; and that value as
// the shaders that write a constant (Fill, Pad) take it.
//
//   Fill(context).record(-2.5f, y);
#pragma once

#include <array>
#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/texture.h"
#include "core/tensor_impl.h"

namespace kiln::gpu_pixel {

// One element's value as a draw writes it: a float for the float textures; for the integer ones
// the element's words (an int64's low word, then its high one).
struct ConstantValue {
  ConstantValue() = default;
  // A float for the float textures (zero words); implicit, as a float constant reads best.
  ConstantValue(float value) : value(value) {}  // NOLINT(google-explicit-constructor)
  // The one element of a host tensor of any texture dtype (texel_dtype.h), exactly.
  static ConstantValue of(const Tensor& one_element);

  float value = 0.0f;
  std::array<int32_t, 2> words{};
  int word_mask = 0;  // 1 for int64: output word i takes words[i & 1]
};

// The GLSL that declares `VALUE constant_value(int i)`, output component i's constant, for a
// program of any values_variant; set_constant_value sets its uniforms.
extern const char* const kConstantValueShader;
void set_constant_value(const Program& program, const ConstantValue& value);

class Fill {
 public:
  explicit Fill(Context& context) : context_(context) {}

  // Draws `value` into every element of y (the texel's lanes past the last element stay zero, as
  // every kernel leaves them); y's format decides which of value's parts is drawn.
  void record(const ConstantValue& value, TextureTensor& y) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
