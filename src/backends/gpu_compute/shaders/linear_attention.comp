#version 450
// LinearAttention's recurrence: per (batch, kv head), a [key_size, value_size] state S updated
// token by token and read by the query heads of the head's group (ops/linear_attention.cpp has
// the update rules). Every rule updates and reads each column of S on its own:
//
//   S[:, j] *= exp(decay)                                   (gated rules)
//   delta_j = beta * (v_j - sum_i S[i, j] k_i)  or  v_j     (delta rules, others)
//   S[:, j] += k delta_j;   output_j = scale * sum_i q_i S[i, j]
//
// so one invocation owns one column j of one (batch, kv head) and runs the whole sequence, in
// the CPU kernel's order of operations. The state lives in `state` (present_state's float32
// data or scratch), loaded from past_state (or zeros) first. Float32 operands: other float types
// are converted by the host on the way in and out.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Q { float q[]; };      // [B, S, Hq * dk]
layout(std430, set = 0, binding = 1) readonly buffer K { float k[]; };      // [B, S, Hkv * dk]
layout(std430, set = 0, binding = 2) readonly buffer V { float v[]; };      // [B, S, Hkv * dv]
layout(std430, set = 0, binding = 3) readonly buffer Past { float past[]; };  // [B, Hkv, dk, dv]
layout(std430, set = 0, binding = 4) readonly buffer Decay { float decay[]; };  // [B, S, Hkv * width]
layout(std430, set = 0, binding = 5) readonly buffer Beta { float beta[]; };    // [B, S, beta_heads]
layout(std430, set = 0, binding = 6) writeonly buffer Out { float o[]; };       // [B, S, Hq * dv]
layout(std430, set = 0, binding = 7) buffer State { float state[]; };          // [B, Hkv, dk, dv]

// Must match LinearAttentionPushConstants in linear_attention.cpp.
layout(push_constant) uniform Params {
  uint batch, seq, q_heads, kv_heads, key_size, value_size;
  uint decay_width;  // 0: no decay; else key_size or 1 per kv head
  uint beta_heads;   // 0: no beta; else kv_heads or 1
  uint has_past;
  float scale;
} p;

#include "float_bits.glsl"
#include "shader_math.glsl"

void main() {
  const uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                     gl_GlobalInvocationID.x;
  const uint dk = p.key_size, dv = p.value_size;
  if (index >= p.batch * p.kv_heads * dv) return;
  const uint j = index % dv;
  const uint item = index / dv;  // b * kv_heads + h
  const uint b = item / p.kv_heads, h = item % p.kv_heads;
  const uint group = p.q_heads / p.kv_heads;
  const uint base = item * dk * dv + j;  // S[0, j]; S[i, j] is base + i * dv

  for (uint i = 0u; i < dk; ++i) state[base + i * dv] = p.has_past != 0u ? past[base + i * dv] : 0.0;
  for (uint t = 0u; t < p.seq; ++t) {
    const uint token = b * p.seq + t;
    const uint kb = token * p.kv_heads * dk + h * dk;
    if (p.decay_width != 0u) {
      const uint db = token * p.kv_heads * p.decay_width + h * p.decay_width;
      for (uint i = 0u; i < dk; ++i) {
        const float g = exp_(decay[db + (p.decay_width == 1u ? 0u : i)]);
        state[base + i * dv] *= g;
      }
    }
    float delta = v[token * p.kv_heads * dv + h * dv + j];
    if (p.beta_heads != 0u) {
      for (uint i = 0u; i < dk; ++i) delta -= state[base + i * dv] * k[kb + i];
      delta *= beta[token * p.beta_heads + (p.beta_heads == 1u ? 0u : h)];
    }
    for (uint i = 0u; i < dk; ++i) state[base + i * dv] += k[kb + i] * delta;
    for (uint qh = h * group; qh < (h + 1u) * group; ++qh) {
      const uint qb = token * p.q_heads * dk + qh * dk;
      float acc = 0.0;
      for (uint i = 0u; i < dk; ++i) acc += q[qb + i] * state[base + i * dv];
      o[token * p.q_heads * dv + qh * dv + j] = acc * p.scale;
    }
  }
}
