#version 450
// Normalizations along lines of a tensor viewed as [outer, n, inner]: each workgroup takes one
// (outer, inner) line of n elements, `inner` apart.
//   Moments (LayerNormalization, InstanceNormalization, GroupNormalization): the line's mean
//     and variance from two shared-memory tree passes (the second over x - mean, which keeps
//     the variance accurate), then y = (x - mean) / sqrt(var + epsilon) * scale + bias; with
//     write_stats also the line's mean and 1 / sqrt(var + epsilon) (LayerNormalization's
//     optional outputs).
//   Mvn (MeanVarianceNormalization): as Moments, but y = (x - mean) / (sqrt(var) + epsilon).
//   Rms (RMSNormalization, SimplifiedLayerNormalization): no centring, y = x / sqrt(mean(x^2)
//     + epsilon) * scale (+ bias); with write_stats the mean written is 0.
//   Lp (LpNormalization): y = x / ||line||_p (p = 1 or 2), an all-zero line stays zero.
//   Given (inference BatchNormalization): the statistics are inputs, per channel.
// The scale / bias / statistics index of the line's element k is
//   (line % channel_mod) * channel_mul + k / channel_div,
// which covers a parameter per element of the line (LayerNormalization: 1, 0, 1), per line
// (InstanceNormalization: C, 1, n) and per channel within a group (GroupNormalization).
// Short lines (`serial`) go one per invocation instead, which keeps every lane busy.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scale { float scale[]; };
layout(std430, set = 0, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mean { float mean_in[]; };
layout(std430, set = 0, binding = 4) readonly buffer Var { float var_in[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 6) writeonly buffer MeanOut { float mean_out[]; };
layout(std430, set = 0, binding = 7) writeonly buffer InvStdOut { float inv_std_out[]; };

const uint kMoments = 0, kLp = 1, kGiven = 2, kRms = 3, kMvn = 4;
// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;

// Must match NormPushConstants in normalization.h.
layout(push_constant) uniform Params {
  uint mode, lines, n, inner;
  uint channel_mod, channel_mul, channel_div;
  uint has_scale, has_bias, p, write_stats, serial;
  float epsilon;
} p;

shared float partial[kMaxWorkgroup];

float tree_sum(float v) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const float r = partial[0];
  barrier();  // before partial is reused
  return r;
}

void main() {
  // `serial` is uniform, so the trees (and their barriers) run in uniform control flow; the
  // early return of a serial invocation past the end skips no barrier anyone waits at.
  const bool serial = p.serial != 0;
  const uint line = serial ? gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                                 gl_GlobalInvocationID.x
                           : gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (line >= p.lines) return;
  const uint tid = serial ? 0 : gl_LocalInvocationID.x;
  const uint step = serial ? 1 : gl_WorkGroupSize.x;
  const uint base = (line / p.inner) * p.n * p.inner + line % p.inner;
  const uint channel0 = (line % p.channel_mod) * p.channel_mul;

  if (p.mode == kLp) {
    float acc = 0.0;
    for (uint k = tid; k < p.n; k += step) {
      const float v = x[base + k * p.inner];
      acc += p.p == 1 ? abs(v) : v * v;
    }
    if (!serial) acc = tree_sum(acc);
    const float norm = p.p == 1 ? acc : sqrt(acc);
    const float inv = norm > 0.0 ? 1.0 / norm : 0.0;
    for (uint k = tid; k < p.n; k += step) y[base + k * p.inner] = x[base + k * p.inner] * inv;
    return;
  }

  float mean = 0.0, inv_std = 0.0;
  if (p.mode == kMoments || p.mode == kRms || p.mode == kMvn) {
    if (p.mode != kRms) {
      float sum = 0.0;
      for (uint k = tid; k < p.n; k += step) sum += x[base + k * p.inner];
      if (!serial) sum = tree_sum(sum);
      mean = sum / float(p.n);
    }
    float squares = 0.0;
    for (uint k = tid; k < p.n; k += step) {
      const float d = x[base + k * p.inner] - mean;
      squares += d * d;
    }
    if (!serial) squares = tree_sum(squares);
    inv_std = p.mode == kMvn ? 1.0 / (sqrt(squares / float(p.n)) + p.epsilon)
                             : inversesqrt(squares / float(p.n) + p.epsilon);
    if (p.write_stats != 0 && tid == 0) {
      mean_out[line] = mean;
      inv_std_out[line] = inv_std;
    }
  }
  for (uint k = tid; k < p.n; k += step) {
    const uint c = channel0 + k / p.channel_div;
    if (p.mode == kGiven) {
      mean = mean_in[c];
      inv_std = 1.0 / sqrt(var_in[c] + p.epsilon);
    }
    float v = (x[base + k * p.inner] - mean) * inv_std;
    if (p.has_scale != 0) v *= scale[c];
    if (p.has_bias != 0) v += bias[c];
    y[base + k * p.inner] = v;
  }
}
