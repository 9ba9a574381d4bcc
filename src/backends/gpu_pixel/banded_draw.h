// draw() for heavy kernels: an output whose fragments loop long is drawn in bands of texture
// rows, each under a budget of inner-loop steps, so that no single draw runs for seconds on a
// software rasterizer (llvmpipe runs a draw to completion, blocking later work behind it).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

// Inner-loop steps (about one multiply-add with two fetches each) per draw before splitting.
constexpr int64_t kStepsPerDraw = int64_t{1} << 25;

// As draw(), with `steps_per_texel` the loop iterations of one fragment (an upper bound, also
// checked against the device's loop budget); bands are scissored, and the scissor test is off
// again on return.
void draw_in_bands(Context& context, const Program& program, TextureTensor& output,
                   std::span<const DrawInput> inputs, int64_t steps_per_texel,
                   const std::function<void()>& set_uniforms = {});

}  // namespace kiln::gpu_pixel
