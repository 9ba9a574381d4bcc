#version 450
// MelWeightMatrix: the float32 [spectrum_bins, mel_bins] matrix of triangular filters, one
// invocation per element, from the filters' edges (spectrum bins, resolved on the host as the
// CPU kernel does). Filter m rises from edges[m] to 1 at edges[m + 1] and falls to 0 at
// edges[m + 2]; a filter of zero rising width is a spike at its centre.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Edges { int edges[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match MelPushConstants in mel_weight_matrix.cpp.
layout(push_constant) uniform Params {
  uint count;     // spectrum_bins * mel_bins
  uint mel_bins;
} p;

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint e = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (e >= p.count) return;
  const int j = int(e / p.mel_bins);
  const uint m = e % p.mel_bins;
  const int left = edges[m], center = edges[m + 1], right = edges[m + 2];
  float w = 0.0;
  if (center == left) {
    if (j == center) w = 1.0;
  } else if (j >= left && j <= center) {
    w = float(j - left) / float(center - left);
  }
  // The falling side from the centre on (where it meets the rising side, both are 1).
  if (j >= center && j < right) w = float(right - j) / float(right - center);
  y[e] = w;
}
