#include "backends/gpu_pixel/banded_draw.h"

#include <GLES3/gl3.h>

#include <algorithm>

namespace kiln::gpu_pixel {

void draw_in_bands(Context& context, const Program& program, TextureTensor& output,
                   std::span<const DrawInput> inputs, int64_t steps_per_texel,
                   const std::function<void()>& set_uniforms) {
  const int64_t steps_per_row = int64_t{output.width()} * std::max<int64_t>(1, steps_per_texel);
  const int rows_per_band = static_cast<int>(
      std::clamp<int64_t>(kStepsPerDraw / steps_per_row, 1, std::max(output.height(), 1)));
  if (rows_per_band >= output.height()) {
    draw(context, program, output, inputs, set_uniforms, steps_per_texel);
    return;
  }
  Context::Scope scope(context);
  // Other kernels draw whole textures: the scissor is off again however this returns.
  struct ScissorTest {
    ScissorTest() { glEnable(GL_SCISSOR_TEST); }
    ~ScissorTest() { glDisable(GL_SCISSOR_TEST); }
  } scissor_test;
  for (int row = 0; row < output.height(); row += rows_per_band) {
    glScissor(0, row, output.width(), std::min(rows_per_band, output.height() - row));
    draw(context, program, output, inputs, set_uniforms, steps_per_texel);
  }
}

}  // namespace kiln::gpu_pixel
