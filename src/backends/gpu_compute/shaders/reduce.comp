#version 450
// Reductions along lines: each workgroup reduces one output element's line of input elements
// (ReduceSum and friends, ArgMax / ArgMin, GlobalAveragePool / GlobalMaxPool). Every
// invocation folds a strided share of the line, then a shared-memory tree combines the
// partial results, so a long line is read by the whole workgroup in parallel. Short lines
// (`serial`) go one per invocation instead, which keeps every lane busy.
//
// The input is addressed through a coalesced view: the kept dimensions (which enumerate the
// lines, in output order) and the reduced dimensions (which enumerate a line's elements), each
// with its extent and input stride, so reduced axes need not be contiguous.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
// Float results as their bit patterns; ArgMax / ArgMin as int64 (low word, high word).
layout(std430, set = 0, binding = 1) writeonly buffer Y { uint y[]; };

const uint kSum = 0, kMean = 1, kMax = 2, kMin = 3, kProd = 4, kL1 = 5, kL2 = 6,
           kSumSquare = 7, kLogSum = 8, kLogSumExp = 9, kArgMax = 10, kArgMin = 11;
const uint kMaxRank = 4;
// The largest workgroup the host creates this pipeline with.
const uint kMaxWorkgroup = 256;

// Must match ReducePushConstants in reduce.h.
layout(push_constant) uniform Params {
  uint op, lines, n, select_last;
  uint kept_rank, reduced_rank, serial;
  uint kept_size[kMaxRank];
  uint kept_stride[kMaxRank];
  uint reduced_size[kMaxRank];
  uint reduced_stride[kMaxRank];
} p;

shared float partial[kMaxWorkgroup];
shared uint partial_index[kMaxWorkgroup];

// The combining step of the float reductions: add, multiply, or max / min propagating NaN.
float combine(uint how, float a, float b) {
  if (how == kProd) return a * b;
  if (how == kMax) return isnan(b) ? b : (b > a ? b : a);
  if (how == kMin) return isnan(b) ? b : (b < a ? b : a);
  return a + b;
}

float identity(uint how) {
  if (how == kProd) return 1.0;
  if (how == kMax) return uintBitsToFloat(0xff800000u);  // -inf
  if (how == kMin) return uintBitsToFloat(0x7f800000u);  // +inf
  return 0.0;
}

uint offset_in_line(uint k) {
  if (p.reduced_rank == 1) return k * p.reduced_stride[0];
  uint offset = 0;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (k % p.reduced_size[d]) * p.reduced_stride[d];
    k /= p.reduced_size[d];
  }
  return offset;
}

// Every invocation gets the combination of all invocations' values.
float tree(uint how, float v) {
  const uint tid = gl_LocalInvocationID.x;
  partial[tid] = v;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] = combine(how, partial[tid], partial[tid + s]);
    barrier();
  }
  const float r = partial[0];
  barrier();  // before partial is reused
  return r;
}

// Whether (v, i) beats (best, best_i) for ArgMax / ArgMin; an index of ~0 is "none yet".
bool better(float v, uint i, float best, uint best_i) {
  if (i == ~0u) return false;
  if (best_i == ~0u) return true;
  const bool wins = p.op == kArgMax ? v > best : v < best;
  if (wins) return true;
  if (v != best) return false;
  return p.select_last != 0 ? i > best_i : i < best_i;
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

  uint base = 0;
  uint rest = line;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    base += (rest % p.kept_size[d]) * p.kept_stride[d];
    rest /= p.kept_size[d];
  }

  if (p.op == kArgMax || p.op == kArgMin) {
    float best = 0.0;
    uint best_i = ~0u;
    for (uint k = tid; k < p.n; k += step) {
      const float v = x[base + offset_in_line(k)];
      if (better(v, k, best, best_i)) {
        best = v;
        best_i = k;
      }
    }
    if (!serial) {
      partial[tid] = best;
      partial_index[tid] = best_i;
      barrier();
      for (uint s = step / 2; s > 0; s >>= 1) {
        if (tid < s && better(partial[tid + s], partial_index[tid + s], partial[tid],
                              partial_index[tid])) {
          partial[tid] = partial[tid + s];
          partial_index[tid] = partial_index[tid + s];
        }
        barrier();
      }
      best_i = partial_index[0];
    }
    if (tid == 0) {
      y[2 * line] = best_i == ~0u ? 0u : best_i;
      y[2 * line + 1] = 0u;
    }
    return;
  }

  // LogSumExp subtracts the line's maximum first, so exp cannot overflow.
  float shift = 0.0;
  if (p.op == kLogSumExp) {
    float m = identity(kMax);
    for (uint k = tid; k < p.n; k += step) m = combine(kMax, m, x[base + offset_in_line(k)]);
    shift = serial ? m : tree(kMax, m);
  }
  const uint how = (p.op == kMax || p.op == kMin || p.op == kProd) ? p.op : kSum;
  float acc = identity(how);
  const bool finite_shift = !isinf(shift);
  for (uint k = tid; k < p.n; k += step) {
    float v = x[base + offset_in_line(k)];
    if (p.op == kL1) v = abs(v);
    if (p.op == kL2 || p.op == kSumSquare) v = v * v;
    if (p.op == kLogSumExp) v = finite_shift ? exp(v - shift) : 0.0;
    acc = combine(how, acc, v);
  }
  float r = acc;
  if (!serial) r = tree(how, acc);
  if (tid != 0) return;
  // An empty line (n == 0) leaves the identity: the sum 0, the product 1, the maximum -inf,
  // the minimum +inf; the mean is then 0 / 0 and the log-sum log(0), spelt out because GLSL
  // leaves both undefined.
  if (p.op == kMean) r = p.n == 0 ? uintBitsToFloat(0x7fc00000u) : r / float(p.n);
  if (p.op == kL2) r = sqrt(r);
  if (p.op == kLogSum) r = r == 0.0 ? uintBitsToFloat(0xff800000u) : log(r);
  if (p.op == kLogSumExp) r = finite_shift ? log(r) + shift : shift;
  y[line] = floatBitsToUint(r);
}
