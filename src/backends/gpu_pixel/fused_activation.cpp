#include "backends/gpu_pixel/fused_activation.h"

namespace kiln::gpu_pixel {

void add_activation(ProgramVariant& variant, FusedActivation activation) {
  variant.add(activation == FusedActivation::kRelu, "ACT_RELU");
  variant.add(activation == FusedActivation::kClip, "ACT_CLIP");
  variant.add(activation == FusedActivation::kHardSwish, "ACT_HARDSWISH");
  variant.add(activation == FusedActivation::kSilu, "ACT_SILU");
}

void set_activation_uniforms(const Program& program, float clip_min, float clip_max) {
  program.set("u_clip_min", clip_min);
  program.set("u_clip_max", clip_max);
}

}  // namespace kiln::gpu_pixel
