#version 450
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss over an input viewed as [N, C, D]:
// sample s = n * D + d reads class c at (n * C + c) * D + d (opdefs/softmax.h). Three passes:
//
//   LOG_PROB (SoftmaxCrossEntropyLoss only): an invocation per sample writes log_softmax of its C
//     scores, max-shifted so that exp never overflows;
//   LOSS: an invocation per sample writes -log_prob[target] * weight (reduction "none");
//   REDUCE: one workgroup sums the losses and the weights of all samples into out[0], divided by
//     the weights for "mean" (0 / 0 = NaN over no or only ignored samples, as on the CPU).
//
// A target that is neither a class nor the ignore_index makes its loss NaN: the host checks
// targets it holds (so that the CPU kernel reports them), but targets computed on the device are
// never read back.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Target { uint target[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weight { float weight[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float out_[]; };

// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;

// Must match LossPushConstants in loss.cpp; `reduction` is kiln::LossReduction.
layout(push_constant) uniform Params {
  uint pass_;
  uint samples, classes, spatial;
  uint target_words;  // 1: int32, 2: int64 (little-endian words)
  uint has_weight, has_ignore;
  uint ignore_lo, ignore_hi;  // ignore_index as two words (hi only compared for int64)
  uint reduction;
} p;
const uint LOG_PROB = 0, LOSS = 1, REDUCE = 2;
const uint SUM = 1, MEAN = 2;

shared float loss_part[kMaxWorkgroup];
shared float weight_part[kMaxWorkgroup];

// uintBitsToFloat is no constant expression in GLSL 4.50.
#define kNaN uintBitsToFloat(0x7fc00000u)

uint offset_of(uint s, uint c) {
  const uint n = s / p.spatial, d = s % p.spatial;
  return (n * p.classes + c) * p.spatial + d;
}

void write_log_prob(uint s) {
  float m = x[offset_of(s, 0)];
  for (uint c = 1; c < p.classes; ++c) m = max(m, x[offset_of(s, c)]);
  float sum = 0.0;
  for (uint c = 0; c < p.classes; ++c) sum += exp(x[offset_of(s, c)] - m);
  const float shift = m + log(sum);
  for (uint c = 0; c < p.classes; ++c) out_[offset_of(s, c)] = x[offset_of(s, c)] - shift;
}

bool is_ignored(uint s) {
  if (p.has_ignore == 0) return false;
  if (p.target_words == 1) return target[s] == p.ignore_lo;
  return target[2 * s] == p.ignore_lo && target[2 * s + 1] == p.ignore_hi;
}

// The sample's class, or ~0u when the target is no class.
uint class_of(uint s) {
  const uint lo = target[s * p.target_words];
  if (p.target_words == 2 && target[2 * s + 1] != 0) return ~0u;
  return lo < p.classes ? lo : ~0u;
}

// (loss, weight) of sample s; an ignored sample weighs 0 and its input is never read.
vec2 sample_loss(uint s) {
  if (is_ignored(s)) return vec2(0.0);
  const uint c = class_of(s);
  if (c == ~0u) return vec2(kNaN, kNaN);
  const float w = p.has_weight != 0 ? weight[c] : 1.0;
  return vec2(-x[offset_of(s, c)] * w, w);
}

void main() {
  if (p.pass_ == REDUCE) {
    const uint tid = gl_LocalInvocationID.x;
    vec2 acc = vec2(0.0);
    for (uint s = tid; s < p.samples; s += gl_WorkGroupSize.x) acc += sample_loss(s);
    loss_part[tid] = acc.x;
    weight_part[tid] = acc.y;
    barrier();
    for (uint h = gl_WorkGroupSize.x / 2; h > 0; h >>= 1) {
      if (tid < h) {
        loss_part[tid] += loss_part[tid + h];
        weight_part[tid] += weight_part[tid + h];
      }
      barrier();
    }
    if (tid == 0) {
      const float loss = loss_part[0], total = weight_part[0];
      out_[0] = p.reduction == MEAN ? (total == 0.0 ? kNaN : loss / total) : loss;
    }
    return;
  }
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint s = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (s >= p.samples) return;
  if (p.pass_ == LOG_PROB) {
    write_log_prob(s);
  } else {
    out_[s] = sample_loss(s).x;
  }
}
