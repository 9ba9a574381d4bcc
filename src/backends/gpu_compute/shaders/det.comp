#version 450
// Det of float32 matrices [count, n, n], one invocation per matrix, by Gaussian elimination with
// partial pivoting in double, in the CPU kernel's order of operations (its rows swapped, its
// zero-factor rows skipped, NaN pivots carried on), so that the results round as the CPU's do.
// Each matrix is copied as doubles into its own part of the scratch buffer `work` and
// eliminated there. Needs shaderFloat64; the host checks the device has it.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Work { double a[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

// Must match DetPushConstants in det.cpp.
layout(push_constant) uniform Params {
  uint count;  // matrices
  uint n;      // their order
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint m = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (m >= p.count) return;
  const uint n = p.n;
  const uint base = m * n * n;
  for (uint i = 0; i < n * n; ++i) a[base + i] = double(x[base + i]);
  precise double det = 1.0lf;
  for (uint col = 0; col < n; ++col) {
    uint pivot = col;
    for (uint r = col + 1; r < n; ++r) {
      if (abs(a[base + r * n + col]) > abs(a[base + pivot * n + col])) pivot = r;
    }
    if (a[base + pivot * n + col] == 0.0lf) {  // singular (NaN pivots carry on and give NaN)
      det = 0.0lf;
      break;
    }
    if (pivot != col) {
      for (uint c = 0; c < n; ++c) {
        const double t = a[base + pivot * n + c];
        a[base + pivot * n + c] = a[base + col * n + c];
        a[base + col * n + c] = t;
      }
      det = -det;
    }
    const double pv = a[base + col * n + col];
    det *= pv;
    for (uint r = col + 1; r < n; ++r) {
      precise double factor = a[base + r * n + col] / pv;
      if (factor == 0.0lf) continue;
      for (uint c = col + 1; c < n; ++c) {
        precise double v = a[base + r * n + c] - factor * a[base + col * n + c];
        a[base + r * n + c] = v;
      }
    }
  }
  y[m] = float(det);
}
