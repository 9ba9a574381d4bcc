// The one way kiln draws: a program over every texel of an output tensor.
//
//   const Program& program = context.programs().get("binary", "Add", defines, body);
//   const DrawInput inputs[] = {{"a", &a}, {"b", &b}};
//   draw(context, program, c, inputs, [&] { program.set("u_rank", rank); });
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

struct DrawInput {
  const char* sampler;  // the sampler2D uniform; `<sampler>_width` receives the texture width
  const TextureTensor* tensor;
};

// Binds `output` as the render target with a viewport of its whole texture, binds each input to
// texture unit 0, 1, ... with its sampler and width uniforms, sets u_out_width and u_out_count,
// lets `set_uniforms` set the rest, and draws the full-screen triangle. Returns at once: GL runs
// draws in order, and readbacks wait for them. Draws nothing for an empty output. kiln::Error when
// an input is also the output (GL forbids the feedback loop), an input is empty or from another
// context, or there are more inputs than texture units. `loop_steps_per_texel`, an upper bound
// of the loop iterations one fragment runs (all loops together), must fit the device's budget
// (loop_budget.h); a kernel beyond it throws RunOnCpu, so that its layer runs on the CPU.
void draw(Context& context, const Program& program, TextureTensor& output,
          std::span<const DrawInput> inputs, const std::function<void()>& set_uniforms = {},
          int64_t loop_steps_per_texel = 0);

}  // namespace kiln::gpu_pixel
