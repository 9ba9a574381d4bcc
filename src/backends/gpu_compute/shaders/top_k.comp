#version 450
// TopK, sorted, over lines of a tensor viewed as [outer, n, inner]: an invocation per input
// element counts the elements of its line that come before it in the CPU's order (larger, or
// smaller, values first; NaN beyond every number; equal values by lower index). That rank is
// unique within the line, so an element ranked below k writes itself and its index straight to
// output position rank. O(n) per element.
//
// Elements are float32, int32, uint32 (1 word), int64 or uint64 (2 words); indices are int64.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Indices { uint indices[]; };

// Must match TopKPushConstants in top_k.cpp.
layout(push_constant) uniform Params {
  uint count;  // input elements
  uint n, inner, k;
  uint largest;
  uint type;   // 0: float32, 1: int32, 2: int64, 3: uint32, 4: uint64
} p;

uint words() { return p.type == 2 || p.type == 4 ? 2u : 1u; }

// Whether element j of a line comes before element a (both line offsets `inner` apart).
bool before(uint base, uint j, uint a) {
  const uint ej = base + j * p.inner, ea = base + a * p.inner;
  const bool largest = p.largest != 0;
  if (p.type == 0) {
    const float vj = uintBitsToFloat(x[ej]), va = uintBitsToFloat(x[ea]);
    const bool nj = isnan(vj), na = isnan(va);
    if (nj || na) {
      if (nj && na) return j < a;
      return largest ? nj : na;
    }
    if (vj != va) return largest ? vj > va : vj < va;
    return j < a;
  }
  if (p.type == 1) {
    const int vj = int(x[ej]), va = int(x[ea]);
    if (vj != va) return largest ? vj > va : vj < va;
    return j < a;
  }
  if (p.type == 3) {
    const uint vj = x[ej], va = x[ea];
    if (vj != va) return largest ? vj > va : vj < va;
    return j < a;
  }
  // 64-bit: the high words compare signed (int64) or unsigned (uint64), the low ones unsigned.
  const uint uhj = x[2 * ej + 1], uha = x[2 * ea + 1];
  const bool high_greater = p.type == 4 ? uhj > uha : int(uhj) > int(uha);
  const uint lj = x[2 * ej], la = x[2 * ea];
  if (uhj != uha || lj != la) {
    const bool greater = high_greater || (uhj == uha && lj > la);
    return largest ? greater : !greater;
  }
  return j < a;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const uint i = e % p.inner;
  const uint a = (e / p.inner) % p.n;
  const uint o = e / (p.inner * p.n);
  const uint base = o * p.n * p.inner + i;
  uint rank = 0;
  for (uint j = 0; j < p.n && rank < p.k; ++j) {
    if (j != a && before(base, j, a)) ++rank;
  }
  if (rank >= p.k) return;
  const uint at = (o * p.k + rank) * p.inner + i;
  const uint w = words();
  for (uint t = 0; t < w; ++t) values[at * w + t] = x[e * w + t];
  indices[2 * at] = a;
  indices[2 * at + 1] = 0u;
}
