#version 450
// DynamicQuantizeLinear's parameters, as quantization_common.cpp's dynamic_quant_params computes
// them, in two dispatches:
//   stage 0: an invocation per chunk of x: the chunk's minimum and maximum with 0, NaN skipped;
//   stage 1: one invocation folds the chunks' ranges into
//     scale = hi == lo ? 1 : (hi - lo) / 255,  zero_point = round_half_even(clamp(-lo / scale,
//     0, 255)) (0 where that is NaN: both infinities),
//   divided correctly rounded, as the CPU divides. quantize_linear.comp then quantizes x with them.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Ranges { float ranges[]; };  // [chunks, 2]
layout(std430, set = 0, binding = 2) writeonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 3) writeonly buffer ZeroPoint { uint zero_point[]; };

// Must match DynamicQuantizePushConstants in quantize_linear.cpp.
layout(push_constant) uniform Params {
  uint stage;
  uint count;   // elements of x
  uint chunk;   // elements per chunk
  uint chunks;
} p;

#include "divide_rn.glsl"

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint g = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (p.stage == 0u) {
    if (g >= p.chunks) return;
    float lo = 0.0, hi = 0.0;
    const uint end = min(p.count, (g + 1u) * p.chunk);
    for (uint i = g * p.chunk; i < end; ++i) {
      const float v = x[i];
      if (isnan(v)) continue;
      lo = min(lo, v);
      hi = max(hi, v);
    }
    ranges[2u * g] = lo;
    ranges[2u * g + 1u] = hi;
    return;
  }
  if (g != 0u) return;
  float lo = 0.0, hi = 0.0;
  for (uint c = 0u; c < p.chunks; ++c) {
    lo = min(lo, ranges[2u * c]);
    hi = max(hi, ranges[2u * c + 1u]);
  }
  const float s = hi == lo ? 1.0 : divide(hi - lo, 255.0);
  float z = 0.0 - divide(lo, s);
  z = isnan(z) ? 0.0 : roundEven(clamp(z, 0.0, 255.0));
  scale[0] = s;
  zero_point[0] = uint(z);
}
