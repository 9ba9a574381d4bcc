#version 450
// Softmax and LogSoftmax along lines of a tensor viewed as [outer, n, inner]: each workgroup
// takes one (outer, inner) line of n elements, `inner` apart. The line's maximum and the sum of
// exp(x - max) come from shared-memory trees (so exp never overflows), then every invocation
// writes its share of the line. Short lines (`serial`) go one per invocation instead, which
// keeps every lane busy.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;

// Must match SoftmaxPushConstants in softmax.h.
layout(push_constant) uniform Params {
  uint lines, n, inner, log_softmax, serial;
} p;

shared float partial[kMaxWorkgroup];

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

  float m = uintBitsToFloat(0xff800000u);  // -inf
  for (uint k = tid; k < p.n; k += step) {
    const float v = x[base + k * p.inner];
    m = isnan(v) ? v : max(m, v);
  }
  if (!serial) m = tree(true, m);
  float sum = 0.0;
  for (uint k = tid; k < p.n; k += step) sum += exp(x[base + k * p.inner] - m);
  if (!serial) sum = tree(false, sum);

  if (p.log_softmax != 0) {
    const float shift = m + log(sum);
    for (uint k = tid; k < p.n; k += step) y[base + k * p.inner] = x[base + k * p.inner] - shift;
  } else {
    const float inv = 1.0 / sum;
    for (uint k = tid; k < p.n; k += step) {
      y[base + k * p.inner] = exp(x[base + k * p.inner] - m) * inv;
    }
  }
}
