#version 450
// GridSample over 1 to 3 spatial axes of float32 X [N, C, D...] at the float32 grid's
// normalised positions [N, D_out..., rank] (coordinates innermost axis first). An invocation per
// (n, output position) resolves each axis's taps (1 for nearest, 2 for linear, 4 for cubic: an
// input index, or -1 for zero padding, and a weight) once, then sums their products for every
// channel. The arithmetic follows the CPU kernel (ops/grid_sample.cpp) step for step, in float.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Grid { float grid[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

// Must match GridSamplePushConstants in grid_sample.cpp; mode and padding are
// kiln::GridSampleMode and kiln::GridSamplePadding.
layout(push_constant) uniform Params {
  uint items;  // N * output positions
  uint channels, rank;
  uint mode, padding, align_corners;
  uint out_plane, in_plane;
  uint in_size[3];
} p;
const uint NEAREST = 0, LINEAR = 1, CUBIC = 2;
const uint ZEROS = 0, BORDER = 1, REFLECTION = 2;
const float kAlpha = -0.75;  // kiln::kGridSampleCubicAlpha

int tap_count[3];
int tap_index[3][4];
float tap_weight[3][4];

// Reflects v into [lo, hi], bouncing off the borders as often as needed.
float reflect_into(float v, float lo, float hi) {
  if (v >= lo && v <= hi) return v;
  const float range = hi - lo;
  if (!(range > 0.0) || isinf(v) || isnan(v)) return lo;
  const float dx = v < lo ? lo - v : v - hi;
  const float flips = floor(dx / range);
  const float r = dx - flips * range;
  const bool even = mod(flips, 2.0) == 0.0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// Where integer tap i of an axis of `size` reads from, or -1 for zero padding.
int resolve(int i, int size, float lo, float hi) {
  if (i >= 0 && i < size) return i;
  if (p.padding == BORDER) return i < 0 ? 0 : size - 1;
  if (p.padding == REFLECTION) {
    const int r = int(reflect_into(float(i), lo, hi));
    return r >= 0 && r < size ? r : -1;
  }
  return -1;
}

float cubic_near(float v) { return ((kAlpha + 2.0) * v - (kAlpha + 3.0)) * v * v + 1.0; }
float cubic_far(float v) { return ((kAlpha * v - 5.0 * kAlpha) * v + 8.0 * kAlpha) * v - 4.0 * kAlpha; }

void axis_taps(uint d, float c) {
  const int size = int(p.in_size[d]);
  const float n = float(size);
  const bool align = p.align_corners != 0;
  const float lo = align ? 0.0 : -0.5;
  const float hi = align ? n - 1.0 : n - 0.5;
  precise float v = align ? (c + 1.0) / 2.0 * (n - 1.0) : ((c + 1.0) * n - 1.0) / 2.0;
  if (p.mode == NEAREST) v = roundEven(v);
  float pos = v;
  if (!(pos >= lo && pos <= hi)) {
    if (p.padding == BORDER) {
      pos = isnan(pos) ? 0.0 : min(max(pos, 0.0), n - 1.0);
    } else if (p.padding == REFLECTION) {
      pos = reflect_into(pos, lo, hi);
    }
  }
  if (isinf(pos) || isnan(pos) || size == 0) {
    tap_count[d] = 1;
    tap_index[d][0] = -1;
    tap_weight[d][0] = 0.0;
    return;
  }
  pos = min(max(pos, -8.0), n + 8.0);
  if (p.mode == NEAREST) {
    tap_count[d] = 1;
    tap_index[d][0] = resolve(int(pos), size, lo, hi);
    tap_weight[d][0] = 1.0;
    return;
  }
  const float first = floor(pos);
  const float frac = pos - first;
  const int base = int(first);
  if (p.mode == LINEAR) {
    tap_count[d] = 2;
    tap_weight[d][0] = 1.0 - frac;
    tap_weight[d][1] = frac;
    for (int k = 0; k < 2; ++k) tap_index[d][k] = resolve(base + k, size, lo, hi);
  } else {
    tap_count[d] = 4;
    tap_weight[d][0] = cubic_far(frac + 1.0);
    tap_weight[d][1] = cubic_near(frac);
    tap_weight[d][2] = cubic_near(1.0 - frac);
    tap_weight[d][3] = cubic_far(2.0 - frac);
    for (int k = 0; k < 4; ++k) tap_index[d][k] = resolve(base - 1 + k, size, lo, hi);
  }
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint item = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (item >= p.items) return;
  const uint n = item / p.out_plane, pos = item % p.out_plane;
  const uint rank = p.rank;
  for (uint d = 0; d < 3; ++d) tap_count[d] = 1;
  for (uint d = 0; d < rank; ++d) axis_taps(d, grid[item * rank + (rank - 1 - d)]);
  uint stride[3];
  uint s = 1;
  for (int d = int(rank) - 1; d >= 0; --d) {
    stride[d] = s;
    s *= p.in_size[d];
  }
  for (uint c = 0; c < p.channels; ++c) {
    const uint plane = (n * p.channels + c) * p.in_plane;
    float sum = 0.0;
    // Taps in the CPU's order: the last axis fastest.
    for (int a = 0; a < tap_count[0]; ++a) {
      for (int b = 0; b < tap_count[1]; ++b) {
        for (int e = 0; e < tap_count[2]; ++e) {
          const int picks[3] = int[3](a, b, e);
          int offset = 0;
          float weight = 1.0;
          bool inside = true;
          for (uint d = 0; d < rank; ++d) {
            const int i = tap_index[d][picks[d]];
            if (i < 0) inside = false;
            offset += i * int(stride[d]);
            weight *= tap_weight[d][picks[d]];
          }
          if (inside) sum += weight * x[plane + uint(offset)];
        }
      }
    }
    y[(n * p.channels + c) * p.out_plane + pos] = sum;
  }
}
