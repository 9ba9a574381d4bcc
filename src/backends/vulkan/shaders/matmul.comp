#version 450
// C = act(alpha * A x B + beta * bias) over a batch, register-blocked: each invocation computes a
// 4x4 block of C, reading A and B straight from memory (no shared memory or barriers, which
// lavapipe runs slowly; see PLATFORM-NOTES). Strides make transposes and broadcast batches free:
// A(m, k) = a[batch offset + m * a_rs + k * a_cs], and likewise B(k, n).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };

// Must match MatMulPushConstants in matmul.h.
layout(push_constant) uniform Params {
  uint M, N, K;
  uint batch_inner;     // batch index = outer * batch_inner + inner
  uint a_s0, a_s1, a_rs, a_cs;
  uint b_s0, b_s1, b_rs, b_cs;
  uint c_s0, c_s1;      // C is row-major M x N per batch
  uint has_bias, bias_rs, bias_cs;
  uint act;             // 0 none, 1 relu, 2 clip
  float alpha, beta, lo, hi;
} p;

void main() {
  const uint tiles_n = (p.N + 3) / 4;
  const uint tiles = tiles_n * ((p.M + 3) / 4);
  const uint t = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (t >= tiles) return;
  const uint outer = gl_GlobalInvocationID.z / p.batch_inner;
  const uint inner = gl_GlobalInvocationID.z % p.batch_inner;
  const uint m0 = (t / tiles_n) * 4;
  const uint n0 = (t % tiles_n) * 4;
  const uint a_base = outer * p.a_s0 + inner * p.a_s1;
  const uint b_base = outer * p.b_s0 + inner * p.b_s1;

  // Rows and columns past the edge read the last valid one (in bounds) and are never written.
  uint ar[4];
  uint bc[4];
  for (uint i = 0; i < 4; ++i) ar[i] = a_base + min(m0 + i, p.M - 1) * p.a_rs;
  for (uint j = 0; j < 4; ++j) bc[j] = b_base + min(n0 + j, p.N - 1) * p.b_cs;

  vec4 acc[4] = vec4[4](vec4(0), vec4(0), vec4(0), vec4(0));
  uint ak = 0;
  uint bk = 0;
  for (uint k = 0; k < p.K; ++k) {
    const vec4 bv = vec4(b[bc[0] + bk], b[bc[1] + bk], b[bc[2] + bk], b[bc[3] + bk]);
    acc[0] += a[ar[0] + ak] * bv;
    acc[1] += a[ar[1] + ak] * bv;
    acc[2] += a[ar[2] + ak] * bv;
    acc[3] += a[ar[3] + ak] * bv;
    ak += p.a_cs;
    bk += p.b_rs;
  }

  const uint c_base = outer * p.c_s0 + inner * p.c_s1;
  for (uint i = 0; i < 4; ++i) {
    const uint m = m0 + i;
    if (m >= p.M) break;
    for (uint j = 0; j < 4; ++j) {
      const uint n = n0 + j;
      if (n >= p.N) break;
      float v = p.alpha * acc[i][j];
      if (p.has_bias != 0) v += p.beta * bias[m * p.bias_rs + n * p.bias_cs];
      if (p.act == 1) v = max(v, 0.0);
      if (p.act == 2) v = min(max(v, p.lo), p.hi);
      c[c_base + m * p.N + n] = v;
    }
  }
}
