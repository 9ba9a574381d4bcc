#version 450
// CumSum and CumProd of float64 tensors (cumulative.comp's float32 and int32 walk, in double):
// an invocation per line keeps the running total in the CPU's order, so totals round as the
// CPU's do. Needs shaderFloat64; the host checks the device has it before creating the pipeline.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { double y[]; };

// Must match CumulativePushConstants in cumulative.cpp (is_float is unused here).
layout(push_constant) uniform Params {
  uint lines, n, inner;
  uint product;  // 0: CumSum, 1: CumProd
  uint is_float;
  uint exclusive, reverse;
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint line = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (line >= p.lines) return;
  const uint o = line / p.inner, i = line % p.inner;
  const uint base = o * p.n * p.inner + i;
  precise double total = p.product != 0 ? 1.0lf : 0.0lf;
  for (uint step = 0; step < p.n; ++step) {
    const uint a = p.reverse != 0 ? p.n - 1 - step : step;
    const uint e = base + a * p.inner;
    const double v = x[e];
    if (p.exclusive != 0) y[e] = total;
    total = p.product != 0 ? total * v : total + v;
    if (p.exclusive == 0) y[e] = total;
  }
}
