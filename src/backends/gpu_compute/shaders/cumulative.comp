#version 450
// CumSum and CumProd along lines of a tensor viewed as [outer, n, inner]: an invocation per
// line keeps the running total in the CPU's order (from the start, or from the end when
// reversed), writing each element's total with (inclusive) or without (exclusive) its own
// input. float32 totals round as the CPU's do; int32 ones wrap.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { uint y[]; };

// Must match CumulativePushConstants in cumulative.cpp.
layout(push_constant) uniform Params {
  uint lines, n, inner;
  uint product;   // 0: CumSum, 1: CumProd
  uint is_float;  // 1: float32, 0: int32
  uint exclusive, reverse;
} p;

uint combine(uint total, uint v) {
  if (p.is_float != 0) {
    const float a = uintBitsToFloat(total), b = uintBitsToFloat(v);
    precise float r = p.product != 0 ? a * b : a + b;
    return floatBitsToUint(r);
  }
  return p.product != 0 ? total * v : total + v;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint line = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (line >= p.lines) return;
  const uint o = line / p.inner, i = line % p.inner;
  const uint base = o * p.n * p.inner + i;
  uint total = p.product != 0 ? (p.is_float != 0 ? floatBitsToUint(1.0) : 1u)
                              : (p.is_float != 0 ? floatBitsToUint(0.0) : 0u);
  for (uint step = 0; step < p.n; ++step) {
    const uint a = p.reverse != 0 ? p.n - 1 - step : step;
    const uint e = base + a * p.inner;
    const uint v = x[e];
    if (p.exclusive != 0) y[e] = total;
    total = combine(total, v);
    if (p.exclusive == 0) y[e] = total;
  }
}
