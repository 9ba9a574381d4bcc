#version 450
// MaxPool and AveragePool over NCHW planes with 1 or 2 spatial axes (1-D is height 1): one
// invocation per output element walks its window's taps inside the image. Padding never
// wins a maximum; an average divides by the taps inside the image, or with count_include_pad
// by the taps inside the padded image (a ceil_mode window may reach past even that).

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match PoolPushConstants in pool.h.
layout(push_constant) uniform Params {
  uint count, average, count_include_pad;
  uint H, W, OH, OW;
  uint KH, KW;
  uint sh, sw, dh, dw;
  int ph, pw, pad_end_h, pad_end_w;
} p;

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

void main() {
  const uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                 gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  const uint ow = i % p.OW;
  const uint oh = (i / p.OW) % p.OH;
  const uint plane = i / (p.OW * p.OH);
  const int base_h = int(oh * p.sh) - p.ph;
  const int base_w = int(ow * p.sw) - p.pw;
  const uvec2 rows = taps_inside(base_h, p.H, p.KH, p.dh);
  const uvec2 cols = taps_inside(base_w, p.W, p.KW, p.dw);
  const uint x_plane = plane * p.H * p.W;

  float acc = p.average != 0 ? 0.0 : uintBitsToFloat(0xff800000u);  // -inf
  for (uint r = rows.x; r < rows.y; ++r) {
    const uint row = x_plane + uint(base_h + int(r * p.dh)) * p.W;
    for (uint c = cols.x; c < cols.y; ++c) {
      const float v = x[row + uint(base_w + int(c * p.dw))];
      acc = p.average != 0 ? acc + v : (v > acc ? v : acc);
    }
  }
  if (p.average != 0) {
    uint taps = (rows.y - rows.x) * (cols.y - cols.x);
    if (p.count_include_pad != 0) {
      taps = taps_in_padded(base_h, p.H, p.pad_end_h, p.KH, p.dh) *
             taps_in_padded(base_w, p.W, p.pad_end_w, p.KW, p.dw);
    }
    acc = taps > 0 ? acc / float(taps) : 0.0;
  }
  y[i] = acc;
}
