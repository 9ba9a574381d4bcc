#version 450
// Batched y = act(alpha * A x B + beta * C + R) for float32 (R: a residual of y's shape), operands as strided views. Each
// invocation computes a TM x TN block of y in registers, reading A and B straight from their
// buffers: no shared memory and no barriers, which CPU implementations (lavapipe) run several
// times faster than classic shared-memory tiling. Rows and columns past the edges are clamped to
// the last valid one, so the loop needs no bounds checks; their results are not stored.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;  // a multiple of 8

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 3) readonly buffer C { float c[]; };
layout(std430, set = 0, binding = 4) readonly buffer R { float r[]; };
// The same buffers read four floats at a time by the vector paths (aligned operands only).
layout(std430, set = 0, binding = 0) readonly buffer A4 { vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { vec4 b4[]; };

// Must match MatMulPushConstants in matmul.h.
layout(push_constant) uniform Params {
  uint m, n, k;
  uint a_row_stride, a_col_stride, b_row_stride, b_col_stride;
  uint c_row_stride, c_col_stride;
  uint batch_shape[3];
  uint a_batch_stride[3];
  uint b_batch_stride[3];
  uint c_batch_stride[3];
  float alpha, beta;
  uint has_addend;
  uint activation;
  float act_min, act_max;
  uint mode;  // MODE_*: how A and B are read (MatMulMode)
  uint has_residual;
} p;

// MODE_ROWS: A's rows and B's rows contiguous (plain MatMul), MODE_COLUMNS: A's rows and B's
// columns contiguous (Gemm with transB, i.e. dot products along k); both need k, the strides
// and the batch strides to be multiples of 4, and MODE_ROWS n as well. MODE_SCALAR reads any
// strides.
const uint MODE_SCALAR = 0, MODE_ROWS = 1, MODE_COLUMNS = 2;

#include "activation.glsl"

const uint TM = 8, TN = 8;

void main() {
  // A workgroup covers (size / 8) x 8 blocks (64 x 64 elements of y for 64 invocations), so
  // that its reads of A and B stay in cache; within a run of 8 invocations (a subgroup on CPU
  // implementations) the blocks are neighbours along n, sharing the rows of A.
  const uint tiles_n = (p.n + TN - 1) / TN, tiles_m = (p.m + TM - 1) / TM;
  const uint patches_n = (tiles_n + 7) / 8;
  const uint patch_index = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint patch_rows = gl_WorkGroupSize.x / 8;
  const uint tm = (patch_index / patches_n) * patch_rows + gl_LocalInvocationID.x / 8;
  const uint tn = (patch_index % patches_n) * 8 + gl_LocalInvocationID.x % 8;
  if (tm >= tiles_m || tn >= tiles_n) return;
  const uint m0 = tm * TM, n0 = tn * TN;

  const uint batch = gl_WorkGroupID.z;
  const uint i2 = batch % p.batch_shape[2];
  const uint i1 = (batch / p.batch_shape[2]) % p.batch_shape[1];
  const uint i0 = batch / (p.batch_shape[2] * p.batch_shape[1]);
  const uint a_base =
      i0 * p.a_batch_stride[0] + i1 * p.a_batch_stride[1] + i2 * p.a_batch_stride[2];
  const uint b_base =
      i0 * p.b_batch_stride[0] + i1 * p.b_batch_stride[1] + i2 * p.b_batch_stride[2];

  float acc[TM][TN];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;
  }
  uint a_row[TM];
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    a_row[i] = a_base + min(m0 + i, p.m - 1) * p.a_row_stride;
  }

  if (p.mode == MODE_ROWS) {
    // Four k at a time: one vec4 of each A row, two vec4 of each of four B rows.
    [[unroll]] for (uint i = 0; i < TM; ++i) a_row[i] /= 4;
    // n is a multiple of 4, so each half of the block is wholly inside or wholly past the edge.
    const uint b_lo = (b_base + min(n0, p.n - 4)) / 4, b_hi = (b_base + min(n0 + 4, p.n - 4)) / 4;
    const uint b_step = p.b_row_stride / 4;
    uint bk = 0;
    for (uint kk = 0; kk < p.k; kk += 4) {
      vec4 av[TM];
      [[unroll]] for (uint i = 0; i < TM; ++i) av[i] = a4[a_row[i] + kk / 4];
      [[unroll]] for (uint q = 0; q < 4; ++q) {
        const vec4 lo = b4[b_lo + bk], hi = b4[b_hi + bk];
        bk += b_step;
        [[unroll]] for (uint i = 0; i < TM; ++i) {
          [[unroll]] for (uint j = 0; j < 4; ++j) {
            acc[i][j] = fma(av[i][q], lo[j], acc[i][j]);
            acc[i][j + 4] = fma(av[i][q], hi[j], acc[i][j + 4]);
          }
        }
      }
    }
  } else if (p.mode == MODE_COLUMNS) {
    // Dot products along k, four k at a time.
    [[unroll]] for (uint i = 0; i < TM; ++i) a_row[i] /= 4;
    uint b_col[TN];
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      b_col[j] = (b_base + min(n0 + j, p.n - 1) * p.b_col_stride) / 4;
    }
    for (uint k4 = 0; k4 < p.k / 4; ++k4) {
      vec4 av[TM], bv[TN];
      [[unroll]] for (uint i = 0; i < TM; ++i) av[i] = a4[a_row[i] + k4];
      [[unroll]] for (uint j = 0; j < TN; ++j) bv[j] = b4[b_col[j] + k4];
      [[unroll]] for (uint i = 0; i < TM; ++i) {
        [[unroll]] for (uint j = 0; j < TN; ++j) {
          acc[i][j] = fma(av[i].x, bv[j].x, acc[i][j]);
          acc[i][j] = fma(av[i].y, bv[j].y, acc[i][j]);
          acc[i][j] = fma(av[i].z, bv[j].z, acc[i][j]);
          acc[i][j] = fma(av[i].w, bv[j].w, acc[i][j]);
        }
      }
    }
  } else {
    uint b_col[TN];
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      b_col[j] = b_base + min(n0 + j, p.n - 1) * p.b_col_stride;
    }
    uint ak = 0, bk = 0;
    for (uint kk = 0; kk < p.k; ++kk) {
      float av[TM], bv[TN];
      [[unroll]] for (uint i = 0; i < TM; ++i) av[i] = a[a_row[i] + ak];
      [[unroll]] for (uint j = 0; j < TN; ++j) bv[j] = b[b_col[j] + bk];
      [[unroll]] for (uint i = 0; i < TM; ++i) {
        [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
      ak += p.a_col_stride;
      bk += p.b_row_stride;
    }
  }

  const uint c_base =
      i0 * p.c_batch_stride[0] + i1 * p.c_batch_stride[1] + i2 * p.c_batch_stride[2];
  const uint y_base = batch * p.m * p.n;
  [[unroll]] for (uint i = 0; i < TM; ++i) {
    const uint m = m0 + i;
    if (m >= p.m) break;
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      const uint n = n0 + j;
      if (n >= p.n) break;
      float v = p.alpha * acc[i][j];
      if (p.has_addend != 0) v += p.beta * c[c_base + m * p.c_row_stride + n * p.c_col_stride];
      if (p.has_residual != 0) v += r[y_base + m * p.n + n];
      y[y_base + m * p.n + n] = activate(v, p.activation, p.act_min, p.act_max);
    }
  }
}
