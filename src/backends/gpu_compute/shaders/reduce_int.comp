#version 450
// Integer reductions along lines (ReduceSum, ReduceProd, ReduceMax, ReduceMin on int32 or
// int64; ReduceMax and ReduceMin on bool, which are any and all): one invocation folds one
// output element's line (bool: the 4 lines of one output word), addressed as in reduce.comp through
// the kept and the reduced dimensions' extents and strides. Sums and products wrap, as the
// CPU's do. Integer reductions are shape arithmetic (a mask's row sums, a sequence length):
// their lines are short, so a serial fold beats a workgroup tree.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X32 { int x32[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y32 { int y32[]; };
layout(std430, set = 0, binding = 0) readonly buffer X64 { int64_t x64[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y64 { int64_t y64[]; };

const uint kSum = 0, kMax = 2, kMin = 3, kProd = 4;
const uint kMaxRank = 4;

// Must match ReduceIntPushConstants in reduce.h (ReducePushConstants, then the element type).
layout(push_constant) uniform Params {
  uint op, lines, n, select_last;
  uint kept_rank, reduced_rank, serial;
  uint kept_size[kMaxRank];
  uint kept_stride[kMaxRank];
  uint reduced_size[kMaxRank];
  uint reduced_stride[kMaxRank];
  uint type;  // 0: int32, 1: int64, 2: bool
} p;

layout(std430, set = 0, binding = 0) readonly buffer XBytes { uint x_words[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YBytes { uint y_words[]; };

uint offset_in_line(uint k) {
  uint offset = 0;
  for (int d = int(p.reduced_rank) - 1; d >= 0; --d) {
    offset += (k % p.reduced_size[d]) * p.reduced_stride[d];
    k /= p.reduced_size[d];
  }
  return offset;
}

uint line_start(uint line) {
  uint offset = 0;
  for (int d = int(p.kept_rank) - 1; d >= 0; --d) {
    offset += (line % p.kept_size[d]) * p.kept_stride[d];
    line /= p.kept_size[d];
  }
  return offset;
}

// The fold of one line; the identity is the first element (an empty line never reaches here).
#define FOLD(T, X)                                          \
  T fold_##X(uint base) {                                   \
    T acc = X[base + offset_in_line(0)];                    \
    for (uint k = 1; k < p.n; ++k) {                        \
      const T v = X[base + offset_in_line(k)];              \
      if (p.op == kSum) acc += v;                           \
      else if (p.op == kProd) acc *= v;                     \
      else if (p.op == kMax) acc = max(acc, v);             \
      else acc = min(acc, v);                               \
    }                                                       \
    return acc;                                             \
  }
FOLD(int, x32)
FOLD(int64_t, x64)

// Max (any) or Min (all) of a bool line, as 0 or 1.
uint fold_bool(uint base) {
  const bool any = p.op == kMax;
  for (uint k = 0; k < p.n; ++k) {
    const uint e = base + offset_in_line(k);
    const bool v = ((x_words[e >> 2] >> ((e & 3u) * 8u)) & 0xffu) != 0u;
    if (v == any) return any ? 1u : 0u;
  }
  return any ? 0u : 1u;
}

void main() {
  const uint invocation = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                          gl_GlobalInvocationID.x;
  if (p.type == 2) {  // invocation i owns output word i: lines 4i .. 4i + 3
    if (4u * invocation >= p.lines) return;
    uint word = 0u;
    for (uint e = 0u; e < 4u && 4u * invocation + e < p.lines; ++e)
      word |= fold_bool(line_start(4u * invocation + e)) << (8u * e);
    y_words[invocation] = word;
    return;
  }
  const uint line = invocation;
  if (line >= p.lines) return;
  const uint base = line_start(line);
  if (p.type == 1) {
    y64[line] = fold_x64(base);
  } else {
    y32[line] = fold_x32(base);
  }
}
