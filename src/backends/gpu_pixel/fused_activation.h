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

// `float activate(float v)`: v itself, or ReLU, Clip, HardSwish or SiLU when ACT_RELU,
// ACT_CLIP, ACT_HARDSWISH or ACT_SILU is defined, with the CPU's formulas
// (backends/cpu/conv_epilogue.cpp). Comparisons rather than max and clamp, which GLSL leaves
// undefined for NaN; NaN must pass.
inline constexpr const char* kFusedActivation = R"(
uniform float u_clip_min;
uniform float u_clip_max;

float activate(float v) {
#if defined(ACT_RELU)
  if (v < 0.0) v = 0.0;
#elif defined(ACT_CLIP)
  if (v < u_clip_min) v = u_clip_min;
  if (v > u_clip_max) v = u_clip_max;
#elif defined(ACT_HARDSWISH)
  float s = v / 6.0 + 0.5;
  v *= s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
#elif defined(ACT_SILU)
  v /= 1.0 + exp(-v);
#endif
  return v;
}
)";

// Adds the define of `activation` to `variant`.
void add_activation(ProgramVariant& variant, FusedActivation activation);

// The Clip bounds, for the program in use.
void set_activation_uniforms(const Program& program, float clip_min, float clip_max);

}  // namespace kiln::gpu_pixel
