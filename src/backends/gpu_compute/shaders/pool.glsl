// MaxPool, AveragePool and LpPool over NC planes with 1 to 3 spatial axes (fewer axes are
// leading axes of size 1): one invocation per output element walks its window's taps inside the
// image. Padding never wins a maximum, and the first tap seeds it (a NaN there stays, as on the
// CPU); an average divides by the taps inside the image, or with count_include_pad by the taps
// inside the padded image (a ceil_mode window may reach past even that); an Lp pool is
// (sum of |x|^p)^(1/p) over the taps inside the image.
//
// With WITH_INDICES defined (max_pool_indices.comp), MaxPool also writes its Indices output as
// opdefs/pool.h defines it: the maximum's flat index into X as an int64 (two words), the spatial
// offset row-major or, with column_major, column-major; -1 for a window with no tap in the image.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
#ifdef WITH_INDICES
layout(std430, set = 0, binding = 2) writeonly buffer Indices { uint indices[]; };
#endif

// Must match PoolPushConstants in pool.h and kiln::PoolOp (opdefs/window.h).
layout(push_constant) uniform Params {
  uint count, kind, count_include_pad;
  float p;  // LpPool's exponent
  uint in_size[3], out_size[3], kernel[3], stride[3], dilation[3];
  int pad[3], pad_end[3];
  uint column_major;  // MaxPool's Indices: the spatial offset in column-major order
} p;
const uint MAX = 0, AVERAGE = 1, LP = 2;

// Taps [lo, hi) of a window starting at `base` along an axis of `size` that land inside it.
uvec2 taps_inside(int base, uint size, uint kernel, uint dilation) {
  const int d = int(dilation);
  const int lo = base >= 0 ? 0 : (-base + d - 1) / d;
  const int hi = base >= int(size) ? 0 : min(int(kernel), (int(size) - 1 - base) / d + 1);
  return uvec2(uint(lo), uint(max(hi, lo)));
}

// Taps inside the padded axis [-pad, size + pad_end).
uint taps_in_padded(int base, uint size, int pad_end, uint kernel, uint dilation) {
  const int limit = int(size) + pad_end - 1 - base;
  return limit < 0 ? 0 : min(uint(limit) / dilation + 1, kernel);
}

// |v|^p with the CPU's exact cases: GLSL's pow is approximate and undefined at 0.
float lp_term(float v) {
  const float a = abs(v);
  return p.p == 2.0 ? a * a : (p.p == 1.0 ? a : (a == 0.0 ? 0.0 : pow(a, p.p)));
}

float lp_root(float sum) {
  return p.p == 2.0 ? sqrt(sum) : (p.p == 1.0 ? sum : (sum == 0.0 ? 0.0 : pow(sum, 1.0 / p.p)));
}

void main() {
  const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  ivec3 base;
  uvec2 taps[3];
  uint rest = i;
  for (int d = 2; d >= 0; --d) {
    base[d] = int((rest % p.out_size[d]) * p.stride[d]) - p.pad[d];
    rest /= p.out_size[d];
    taps[d] = taps_inside(base[d], p.in_size[d], p.kernel[d], p.dilation[d]);
  }
  const uint plane_size = p.in_size[0] * p.in_size[1] * p.in_size[2];
  const uint x_plane = rest * plane_size;  // rest is now the plane

  float acc = p.kind == MAX ? uintBitsToFloat(0xff800000u) : 0.0;  // -inf for a maximum
  bool first = true;
#ifdef WITH_INDICES
  uint best_at = 0u;  // the maximum's spatial offset
#endif
  for (uint a = taps[0].x; a < taps[0].y; ++a) {
    const uint ia = uint(base[0] + int(a * p.dilation[0]));
    const uint slice = ia * p.in_size[1];
    for (uint b = taps[1].x; b < taps[1].y; ++b) {
      const uint ib = uint(base[1] + int(b * p.dilation[1]));
      const uint row = x_plane + (slice + ib) * p.in_size[2];
      for (uint c = taps[2].x; c < taps[2].y; ++c) {
        const uint ic = uint(base[2] + int(c * p.dilation[2]));
        const float v = x[row + ic];
        if (p.kind == MAX) {
          const bool better = first || v > acc;
          acc = better ? v : acc;
#ifdef WITH_INDICES
          if (better) {
            best_at = p.column_major != 0u ? ia + p.in_size[0] * (ib + p.in_size[1] * ic)
                                           : row + ic - x_plane;
          }
#endif
          first = false;
        } else {
          acc += p.kind == LP ? lp_term(v) : v;
        }
      }
    }
  }
  if (p.kind == AVERAGE) {
    uint n = 1;
    for (int d = 0; d < 3; ++d) {
      n *= p.count_include_pad != 0
               ? taps_in_padded(base[d], p.in_size[d], p.pad_end[d], p.kernel[d], p.dilation[d])
               : taps[d].y - taps[d].x;
    }
    acc = n > 0 ? acc / float(n) : 0.0;
  } else if (p.kind == LP) {
    acc = lp_root(acc);
  }
  y[i] = acc;
#ifdef WITH_INDICES
  // Every flat index is below 2^31 (the host checks X's size), so the high word is 0, or all
  // ones for -1.
  indices[2u * i] = first ? 0xffffffffu : x_plane + best_at;
  indices[2u * i + 1u] = first ? 0xffffffffu : 0u;
#endif
}
