#version 450
// Scaled dot-product attention (ONNX Attention), float32, one workgroup per query row
// (b, h, i); the row's keys and values are those of kv head h / group (grouped-query heads).
// The semantics are the CPU kernel's (backends/cpu/attention_kernel.h):
//
//   s_j = scale * q . k_j                          (stage 0)
//   s_j = softcap * tanh(s_j / softcap)            (stage 1, softcap > 0)
//   s_j = s_j + bias_j                             (stage 2)
//   p   = softmax(s) over the keys                 (stage 3)
//   y   = sum_j p_j v_j
//
// bias_j is the attention mask (float, or bool: 0 attend / -inf hide; -inf past its last
// column) plus -inf for keys the causal mask (j > i + offset), its local window
// (j <= i + offset - local_window) or the key padding (j >= valid) hides. A row whose bias is -inf everywhere attends to nothing: probabilities and output 0.
// The scores of stage `scores_stage` (4: none) go to scores_out, [rows, total] contiguous.
//
// Invocations stride over the keys for the scores and the softmax, then over the value features
// for y; the probabilities pass between them through `probs` (scratch, [rows, total]).
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Q { float q[]; };
layout(std430, set = 0, binding = 1) readonly buffer K { float k[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { float v[]; };
// Float mask elements, or bool mask bytes four to a word.
layout(std430, set = 0, binding = 3) readonly buffer Mask { uint mask[]; };
// Per batch: the number of valid keys (nonpad_kv_seqlen), already checked to [0, total]; with
// kBatchOffsets, then per batch the causal offset.
layout(std430, set = 0, binding = 4) readonly buffer Valid { int valid[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 6) coherent buffer Probs { float probs[]; };
layout(std430, set = 0, binding = 7) writeonly buffer Scores { float scores_out[]; };

#include "float_bits.glsl"
#include "shader_math.glsl"

// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;
const uint kMaskNone = 0, kMaskFloat = 1, kMaskBool = 2;
const uint kCausal = 1, kPadded = 2, kBatchOffsets = 4;

// Must match AttentionPushConstants in attention.cpp. Strides are in elements.
layout(push_constant) uniform Params {
  uint rows, q_heads, group, q_len, total, head_size, v_head_size;
  uint q_batch, q_head, q_row;
  uint k_batch, k_head, k_row;
  uint v_batch, v_head, v_row;
  uint y_batch, y_head, y_row;
  uint mask_kind, m_batch, m_head, m_row, m_columns;
  int causal_offset;  // without key padding: query i sees keys up to i + causal_offset
  uint flags, scores_stage;
  float scale, softcap;
  int local_window;  // with the causal mask: keys seen, the diagonal one included; -1: all
} p;

shared float partial[kMaxWorkgroup];

// The workgroup's maximum (a NaN wins, as in the CPU's softmax) or sum of v.
float tree(bool is_max, float value) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = value;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      const float a = partial[tid], b = partial[tid + s];
      partial[tid] = is_max ? (isnan(b) ? b : (isnan(a) ? a : max(a, b))) : a + b;
    }
    barrier();
  }
  const float r = partial[0];
  barrier();  // before partial is reused
  return r;
}

float mask_bias(uint b, uint h, uint i, uint j) {
  if (p.mask_kind == kMaskNone) return 0.0;
  if (j >= p.m_columns) return -inf_value();
  const uint e = b * p.m_batch + h * p.m_head + i * p.m_row + j;
  if (p.mask_kind == kMaskFloat) return uintBitsToFloat(mask[e]);
  return ((mask[e >> 2] >> ((e & 3u) * 8u)) & 0xffu) != 0u ? 0.0 : -inf_value();
}

void keep_stage(uint stage, uint at, float value) {
  if (p.scores_stage == stage) scores_out[at] = value;
}

void main() {
  const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  // Uniform per workgroup, so no barrier is skipped.
  if (row >= p.rows) return;
  const uint tid = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  const uint i = row % p.q_len, bh = row / p.q_len;
  const uint h = bh % p.q_heads, b = bh / p.q_heads, kv = h / p.group;
  const uint q0 = b * p.q_batch + h * p.q_head + i * p.q_row;
  const uint k0 = b * p.k_batch + kv * p.k_head;
  const uint v0 = b * p.v_batch + kv * p.v_head;
  const uint s0 = row * p.total;

  // Keys at and beyond `visible`, and before `first`, are hidden by the causal mask, its local
  // window and the key padding.
  int visible = int(p.total), first = 0;
  const bool padded = (p.flags & kPadded) != 0;
  if ((p.flags & kCausal) != 0) {
    const uint batches = p.rows / (p.q_heads * p.q_len);
    const int offset = (p.flags & kBatchOffsets) != 0 ? valid[batches + b]
                       : padded                       ? valid[b] - int(p.q_len)
                                                      : p.causal_offset;
    visible = min(visible, max(0, int(i) + offset + 1));
    if (p.local_window >= 0) first = int(i) + offset - p.local_window + 1;
  }
  if (padded) visible = min(visible, valid[b]);

  float m = -inf_value(), seen = 0.0;  // seen: 1 once some key's bias is not -inf
  for (uint j = tid; j < p.total; j += step) {
    float s = 0.0;
    for (uint d = 0; d < p.head_size; ++d) s += q[q0 + d] * k[k0 + j * p.k_row + d];
    s *= p.scale;
    keep_stage(0, s0 + j, s);
    if (p.softcap > 0.0) s = p.softcap * tanh_(s * (1.0 / p.softcap));
    keep_stage(1, s0 + j, s);
    const float bias =
        int(j) < visible && int(j) >= first ? mask_bias(b, h, i, j) : -inf_value();
    if (bias != -inf_value()) seen = 1.0;
    s += bias;
    keep_stage(2, s0 + j, s);
    probs[s0 + j] = s;
    m = isnan(s) ? s : (isnan(m) ? m : max(m, s));
  }
  m = tree(true, m);
  const bool hidden = tree(true, seen) == 0.0;

  float sum = 0.0;
  for (uint j = tid; j < p.total; j += step) {
    const float e = exp_(probs[s0 + j] - m);
    probs[s0 + j] = e;
    sum += e;
  }
  sum = tree(false, sum);
  const float inv = 1.0 / sum;
  for (uint j = tid; j < p.total; j += step) {
    const float pr = hidden ? 0.0 : probs[s0 + j] * inv;
    keep_stage(3, s0 + j, pr);
    probs[s0 + j] = pr;
  }
  // Every invocation reads every probability from here on.
  memoryBarrierBuffer();
  barrier();

  const uint y0 = b * p.y_batch + h * p.y_head + i * p.y_row;
  for (uint d = tid; d < p.v_head_size; d += step) {
    float acc = 0.0;
    for (uint j = 0; j < p.total; ++j) acc += probs[s0 + j] * v[v0 + j * p.v_row + d];
    y[y0 + d] = acc;
  }
}
