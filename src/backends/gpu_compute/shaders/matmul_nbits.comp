#version 450
// MatMulNBits (com.microsoft), float32: y[m, n] = sum_k a[m, k] * w[n, k] (+ bias[n]) with the
// weight read packed, never expanded in memory (opdefs/block_quantized.h has the layout):
//
//   w[n, k] = (q[n, k] - zp[n, b]) * scale[n, b],  b = g_idx[k], or k / block_size
//
// q[n, k] is the `bits`-bit value at bit (k % (8 / bits)) * bits of byte k / (8 / bits) of row
// n's blobs; zero points are packed like q (a row of ceil(k_blocks * bits / 8) bytes), float
// (one per block), or the default 2^(bits - 1).
//
// One workgroup per weight row n and block of up to kRows rows of A: its invocations stride
// over K (neighbours read neighbouring bytes of the weight row), dequantize each weight once
// for all the block's rows, and a shared-memory tree adds their partial sums. With M = 1 (token
// generation) this is a GEMV reading each weight byte once; a prompt's rows share each
// dequantized weight kRows ways.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
// Bytes, four to a word.
layout(std430, set = 0, binding = 1) readonly buffer B { uint b_words[]; };
layout(std430, set = 0, binding = 2) readonly buffer Scales { float scales[]; };
// Packed zero-point bytes four to a word, or float zero points as their bits.
layout(std430, set = 0, binding = 3) readonly buffer ZeroPoints { uint zp_words[]; };
layout(std430, set = 0, binding = 4) readonly buffer GIdx { int g_idx[]; };
layout(std430, set = 0, binding = 5) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Y { float y[]; };

// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;
// Rows of A a workgroup takes (kNBitsRows in block_quantized.cpp).
const uint kRows = 8;
const uint kZpDefault = 0, kZpPacked = 1, kZpFloat = 2;

// Must match NBitsPushConstants in block_quantized.cpp.
layout(push_constant) uniform Params {
  uint M, N, K, bits, block_size, k_blocks;
  uint row_bytes;     // k_blocks * blob_size: one row of B
  uint zp_kind, zp_row_bytes;
  uint has_g_idx, has_bias;
} p;

shared float partial[kRows][kMaxWorkgroup];

uint byte_of_b(uint i) { return (b_words[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }
uint byte_of_zp(uint i) { return (zp_words[i >> 2] >> ((i & 3u) * 8u)) & 0xffu; }

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint m_blocks = (p.M + kRows - 1) / kRows;
  // Uniform per workgroup, so no barrier is skipped.
  if (group >= m_blocks * p.N) return;
  const uint tid = gl_LocalInvocationID.x;
  const uint n = group % p.N, m0 = (group / p.N) * kRows;
  const uint rows = min(kRows, p.M - m0);
  const uint per = 8u / p.bits, mask = (1u << p.bits) - 1u;
  const float default_zp = float(1u << (p.bits - 1u));
  const uint row = n * p.row_bytes;

  float acc[kRows];
  for (uint r = 0; r < kRows; ++r) acc[r] = 0.0;
  for (uint k = tid; k < p.K; k += gl_WorkGroupSize.x) {
    const uint blk = p.has_g_idx != 0 ? uint(g_idx[k]) : k / p.block_size;
    const float q = float((byte_of_b(row + k / per) >> ((k % per) * p.bits)) & mask);
    float zp = default_zp;
    if (p.zp_kind == kZpPacked) {
      zp = float((byte_of_zp(n * p.zp_row_bytes + blk / per) >> ((blk % per) * p.bits)) & mask);
    } else if (p.zp_kind == kZpFloat) {
      zp = uintBitsToFloat(zp_words[n * p.k_blocks + blk]);
    }
    const float w = (q - zp) * scales[n * p.k_blocks + blk];
    for (uint r = 0; r < rows; ++r) acc[r] += a[(m0 + r) * p.K + k] * w;
  }

  for (uint r = 0; r < kRows; ++r) partial[r][tid] = acc[r];
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      for (uint r = 0; r < rows; ++r) partial[r][tid] += partial[r][tid + s];
    }
    barrier();
  }
  if (tid < rows) y[(m0 + tid) * p.N + n] = partial[tid][0] + (p.has_bias != 0 ? bias[n] : 0.0);
}
