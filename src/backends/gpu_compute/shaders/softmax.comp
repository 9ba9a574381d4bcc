#version 450
// Softmax, LogSoftmax and Hardmax along lines of a tensor viewed as [outer, n, inner]: each
// workgroup takes one (outer, inner) line of n elements, `inner` apart. The line's maximum and
// the sum of exp(x - max) come from shared-memory trees (so exp never overflows), then every
// invocation writes its share of the line; Hardmax's first maximum comes from a tree of (value,
// index) pairs. Short lines (`serial`) go one per invocation instead, which keeps every lane
// busy.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;

// Must match SoftmaxPushConstants in softmax.cpp and kiln::SoftmaxOp (opdefs/softmax.h).
layout(push_constant) uniform Params {
  uint lines, n, inner, kind, serial;
} p;
const uint SOFTMAX = 0, LOG_SOFTMAX = 1, HARDMAX = 2;

shared float partial[kMaxWorkgroup];
shared uint partial_index[kMaxWorkgroup];

float tree(bool is_max, float v) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      const float a = partial[tid], b = partial[tid + s];
      partial[tid] = is_max ? (isnan(b) ? b : (b > a ? b : a)) : a + b;
    }
    barrier();
  }
  const float r = partial[0];
  barrier();  // before partial is reused
  return r;
}

// Whether element (v, k) beats the best so far (m, arg) as Hardmax's maximum: larger, or equal
// and earlier. A NaN beats nothing (its comparisons are false); no candidate yet is (-inf, ~0u).
bool beats(float v, uint k, float m, uint arg) { return v > m || (v == m && k < arg); }

// The index of the line's first maximum, as the CPU finds it: a scan from element 0 that moves
// on only to larger values, so a NaN first element wins and any later NaN never does.
uint first_max(bool serial, uint tid, uint step, uint base) {
  float m = uintBitsToFloat(0xff800000u);  // -inf
  uint arg = 0xffffffffu;
  for (uint k = tid; k < p.n; k += step) {
    const float v = x[base + k * p.inner];
    if (beats(v, k, m, arg)) {
      m = v;
      arg = k;
    }
  }
  if (!serial) {
    partial[tid] = m;
    partial_index[tid] = arg;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
      if (tid < s && beats(partial[tid + s], partial_index[tid + s], partial[tid],
                           partial_index[tid])) {
        partial[tid] = partial[tid + s];
        partial_index[tid] = partial_index[tid + s];
      }
      barrier();
    }
    arg = partial_index[0];
  }
  return isnan(x[base]) ? 0 : arg;
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

  if (p.kind == HARDMAX) {
    const uint arg = first_max(serial, tid, step, base);
    for (uint k = tid; k < p.n; k += step) y[base + k * p.inner] = k == arg ? 1.0 : 0.0;
    return;
  }

  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint k = tid; k < p.n; k += step) {
    const float v = x[base + k * p.inner];
    m = isnan(v) ? v : max(m, v);
  }
  if (!serial) m = tree(true, m);
  float sum = 0.0;
  for (uint k = tid; k < p.n; k += step) sum += exp(x[base + k * p.inner] - m);
  if (!serial) sum = tree(false, sum);

  if (p.kind == LOG_SOFTMAX) {
    const float shift = m + log(sum);
    for (uint k = tid; k < p.n; k += step) y[base + k * p.inner] = x[base + k * p.inner] - shift;
  } else {
    const float inv = 1.0 / sum;
    for (uint k = tid; k < p.n; k += step) {
      y[base + k * p.inner] = exp(x[base + k * p.inner] - m) * inv;
    }
  }
}
