#version 450
// CausalConvWithState: the depthwise causal 1-D convolution over the carried state followed by
// the new input. One invocation per element of a row's output followed by its present state:
// positions t < length are output[t] = act(bias + sum_k weight[k] * padded[t + k]); the carry
// positions after them copy padded[t] (the last kernel_size - 1 positions of the padded row).
// padded = concat(past_state or zeros, input). Float32 operands: other float types are
// converted by the host on the way in and out.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Input { float x[]; };        // [rows, length]
layout(std430, set = 0, binding = 1) readonly buffer Weight { float weight[]; };  // [C, 1, K]
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };      // [C]
layout(std430, set = 0, binding = 3) readonly buffer Past { float past[]; };      // [rows, K - 1]
layout(std430, set = 0, binding = 4) writeonly buffer Out { float y[]; };         // [rows, length]
layout(std430, set = 0, binding = 5) writeonly buffer Present { float present[]; };  // [rows, K - 1]

// Must match CausalConvPushConstants in causal_conv_with_state.cpp.
layout(push_constant) uniform Params {
  uint count;  // rows * (length + kernel - 1)
  uint channels, len, kernel;  // len: the input's length
  uint has_bias, has_past, silu, write_present;
} p;

#include "float_bits.glsl"
#include "shader_math.glsl"

float padded(uint row, uint i) {
  const uint carry = p.kernel - 1u;
  if (i >= carry) return x[row * p.len + i - carry];
  return p.has_past != 0u ? past[row * carry + i] : 0.0;
}

void main() {
  const uint e = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint carry = p.kernel - 1u;
  const uint span = p.len + carry;
  const uint row = e / span, t = e % span;
  if (t >= p.len) {
    if (p.write_present != 0u) present[row * carry + t - p.len] = padded(row, t);
    return;
  }
  const uint c = row % p.channels;
  float acc = p.has_bias != 0u ? bias[c] : 0.0;
  for (uint k = 0u; k < p.kernel; ++k) acc += weight[c * p.kernel + k] * padded(row, t + k);
  if (p.silu != 0u) acc = acc / (1.0 + exp_(-acc));
  y[row * p.len + t] = acc;
}
