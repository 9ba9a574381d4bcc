#include "backends/gpu_pixel/draw.h"

#include <string>

#include "backends/gpu_pixel/gl_check.h"
#include "backends/gpu_pixel/loop_budget.h"
#include "kernels/device_backend.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {

void draw(Context& context, const Program& program, TextureTensor& output,
          std::span<const DrawInput> inputs, const std::function<void()>& set_uniforms,
          int64_t loop_steps_per_texel) {
  if (output.element_count() == 0) return;
  const std::string where = "OpenGL ES draw of '" + program.name() + "'";
  const int64_t budget = context.info().max_fragment_loop_steps;
  if (budget != kUnlimitedLoopSteps && loop_steps_per_texel > budget - kLoopStepsReserve) {
    throw RunOnCpu(RunTimeCause::DeviceLimit,
                   where + ": a fragment would loop " + std::to_string(loop_steps_per_texel) +
                       " times, beyond the " + std::to_string(budget) +
                       " iterations the device runs before it cuts loops short");
  }
  check(output.context() == &context, where + ": the output belongs to another context");
  check(static_cast<int>(inputs.size()) <= context.info().max_texture_units,
        where + ": more inputs than texture units");
  for (const DrawInput& in : inputs) {
    check(in.tensor != nullptr && in.tensor->texture() != 0,
          where + ": input '" + in.sampler + "' is empty");
    check(in.tensor->context() == &context,
          where + ": input '" + in.sampler + "' belongs to another context");
    check(in.tensor->texture() != output.texture(),
          where + ": input '" + in.sampler + "' is also the output");
  }
  Context::Scope scope(context);
  bind_as_render_target(context, output);
  glViewport(0, 0, output.width(), output.height());
  glUseProgram(program.id());
  for (size_t unit = 0; unit < inputs.size(); ++unit) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_2D, inputs[unit].tensor->texture());
    program.set(inputs[unit].sampler, static_cast<int>(unit));
    program.set((std::string(inputs[unit].sampler) + "_width").c_str(),
                inputs[unit].tensor->width());
  }
  program.set("u_out_width", output.width());
  program.set("u_out_count", static_cast<int>(output.element_count()));
  if (set_uniforms) set_uniforms();
  glBindVertexArray(context.vertex_array());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  DeviceWorkCounters::add(context.counters().dispatches);
  glBindVertexArray(0);
  for (size_t unit = inputs.size(); unit-- > 0;) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  glUseProgram(0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  check_gl(where.c_str());
}

}  // namespace kiln::gpu_pixel
