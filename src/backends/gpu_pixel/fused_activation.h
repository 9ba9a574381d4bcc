// The activations that Conv and MatMul / Gemm fuse into their outputs: the GLSL that applies
// them and the host side that selects and parameterizes it.
//
//   ProgramVariant variant;
//   add_activation(variant, params.activation);
//   programs.get("conv", variant.name, variant.defines, std::string(kFusedActivation) + kShader);
//   ... set_activation_uniforms(program, params.clip_min, params.clip_max);
#pragma once

#include "backends/gpu_pixel/program.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_pixel {

// `float activate(float v)`: v itself, or ReLU or Clip when ACT_RELU or ACT_CLIP is defined.
// Comparisons rather than max and clamp, which GLSL leaves undefined for NaN; NaN must pass.
inline constexpr const char* kFusedActivation = R"(
uniform float u_clip_min;
uniform float u_clip_max;

float activate(float v) {
#if defined(ACT_RELU)
  if (v < 0.0) v = 0.0;
#elif defined(ACT_CLIP)
  if (v < u_clip_min) v = u_clip_min;
  if (v > u_clip_max) v = u_clip_max;
#endif
  return v;
}
)";

// Adds ACT_RELU or ACT_CLIP to `variant` for those activations.
void add_activation(ProgramVariant& variant, FusedActivation activation);

// The Clip bounds, for the program in use.
void set_activation_uniforms(const Program& program, float clip_min, float clip_max);

}  // namespace kiln::gpu_pixel
