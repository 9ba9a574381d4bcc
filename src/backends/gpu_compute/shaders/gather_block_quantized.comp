#version 450
// GatherBlockQuantized (com.microsoft) in float32 (the host converts float16 scales and output): the output's lines are lines of the
// table's gathered rows, dequantized, one invocation per output element (opdefs/
// block_quantized.h has the layout):
//
//   y[l, c] = (q[line, c] - zp[line, c / block_size]) * scale[line, c / block_size]
//
// where output line l is line (l % inner) of table row rows[l / inner] (indices checked and
// wrapped on the host), q[line, c] the `bits`-bit value at bit (c % (8 / bits)) * bits of byte
// c / (8 / bits) of the line, and the zero points packed the same way (default 2^(bits - 1)).

layout(local_size_x_id = 0) in;

// Bytes, four to a word.
layout(std430, set = 0, binding = 0) readonly buffer Data { uint data_words[]; };
layout(std430, set = 0, binding = 1) readonly buffer Rows { int rows[]; };
layout(std430, set = 0, binding = 2) readonly buffer Scales { float scales[]; };
layout(std430, set = 0, binding = 3) readonly buffer ZeroPoints { uint zp_words[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Y { float y[]; };

// Must match GatherBlockQuantizedPushConstants in block_quantized.cpp.
layout(push_constant) uniform Params {
  uint count, inner, cols, packed_cols, blocks, zp_row_bytes, bits, block_size, has_zp;
} p;

uint byte_at(uint i, bool zp) {
  const uint word = zp ? zp_words[i >> 2] : data_words[i >> 2];
  return (word >> ((i & 3u) * 8u)) & 0xffu;
}

void main() {
  const uint e = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint c = e % p.cols, l = e / p.cols;
  const uint line = uint(rows[l / p.inner]) * p.inner + l % p.inner;
  const uint per = 8u / p.bits, mask = (1u << p.bits) - 1u;
  const uint blk = c / p.block_size;
  const float q = float((byte_at(line * p.packed_cols + c / per, false) >> ((c % per) * p.bits)) &
                        mask);
  float zp = float(1u << (p.bits - 1u));
  if (p.has_zp != 0)
    zp = float((byte_at(line * p.zp_row_bytes + blk / per, true) >> ((blk % per) * p.bits)) & mask);
  y[e] = (q - zp) * scales[line * p.blocks + blk];
}
