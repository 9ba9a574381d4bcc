#version 450
// NonMaxSuppression, one invocation per (batch, class) for the greedy selection, as
// src/ops/non_max_suppression.cpp: the boxes passing the score threshold are visited best score
// first (equal scores by box index, NaN scores last), and each is kept unless its IoU with a box
// kept before exceeds the threshold, until max_output_boxes_per_class are kept. The overlap is
// computed in float64 exactly as the CPU computes it (needs shaderFloat64). The kept count
// decides the output's shape, so it takes three dispatches around a read-back (non_max_suppression.cpp):
//   stage 0: per (batch, class): the kept box indices into `kept`, their number into counts;
//   stage 1: one invocation turns the counts into each pair's first output row, the total after;
//   (the host reads the total back and sizes the output)
//   stage 2: per (batch, class): its rows (batch, class, box) as int64 from its first row on.

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Boxes { float boxes[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scores { float scores[]; };
// Per pair: the kept box indices (cap of them), then a visited flag per box.
layout(std430, set = 0, binding = 2) buffer Kept { uint kept[]; };
layout(std430, set = 0, binding = 3) buffer Counts { uint counts[]; };  // [pairs + 1]
layout(std430, set = 0, binding = 4) writeonly buffer Y { uint y[]; };  // int64 rows

// Must match NmsPushConstants in non_max_suppression.cpp.
layout(push_constant) uniform Params {
  uint stage;
  uint boxes_per_batch, classes, pairs;
  uint cap;           // kept boxes at most per pair: min(max_output_boxes_per_class, boxes)
  uint center_point;  // 1: [x_center, y_center, width, height]
  uint has_score_threshold;
  uint total;         // rows (stage 2)
  double score_threshold;
  double iou_threshold;
} p;

struct Extent {
  double y_min, x_min, y_max, x_max;
};

Extent extent_of(uint batch, uint box) {
  const uint at = (batch * p.boxes_per_batch + box) * 4u;
  const double b0 = double(boxes[at]), b1 = double(boxes[at + 1u]);
  const double b2 = double(boxes[at + 2u]), b3 = double(boxes[at + 3u]);
  if (p.center_point != 0u) {
    const double half_w = b2 / 2.0, half_h = b3 / 2.0;
    return Extent(b1 - half_h, b0 - half_w, b1 + half_h, b0 + half_w);
  }
  return Extent(min(b0, b2), min(b1, b3), max(b0, b2), max(b1, b3));
}

// `precise` keeps every product and sum rounded on its own, as the CPU computes them (no fused
// multiply-adds).
bool overlaps_too_much(Extent a, Extent b) {
  precise double ix = min(a.x_max, b.x_max) - max(a.x_min, b.x_min);
  precise double iy = min(a.y_max, b.y_max) - max(a.y_min, b.y_min);
  if (!(ix > 0.0) || !(iy > 0.0)) return false;
  precise double inter = ix * iy;
  precise double area_a = (a.y_max - a.y_min) * (a.x_max - a.x_min);
  precise double area_b = (b.y_max - b.y_min) * (b.x_max - b.x_min);
  precise double uni = area_a + area_b - inter;
  if (!(area_a > 0.0) || !(area_b > 0.0) || !(uni > 0.0)) return false;
  return inter / uni > p.iou_threshold;
}

// Whether score s (box i) goes before score t (box j > i): better, or NaN-free against NaN.
bool before(float s, float t) {
  if (isnan(s) || isnan(t)) return !isnan(s) && isnan(t);
  return s > t;
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint pair = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (p.stage == 1u) {
    if (pair != 0u) return;
    uint sum = 0u;
    for (uint k = 0u; k < p.pairs; ++k) {
      const uint n = counts[k];
      counts[k] = sum;
      sum += n;
    }
    counts[p.pairs] = sum;
    return;
  }
  if (pair >= p.pairs) return;
  const uint batch = pair / p.classes, cls = pair % p.classes;
  const uint base = pair * (p.cap + p.boxes_per_batch);
  if (p.stage == 2u) {
    const uint first = counts[pair], n = counts[pair + 1u] - first;
    for (uint k = 0u; k < n; ++k) {
      const uint at = 6u * (first + k);
      y[at] = batch;
      y[at + 1u] = 0u;
      y[at + 2u] = cls;
      y[at + 3u] = 0u;
      y[at + 4u] = kept[base + k];
      y[at + 5u] = 0u;
    }
    return;
  }
  // Stage 0. A box is a candidate until visited; scores failing the threshold never are.
  const uint scores_at = pair * p.boxes_per_batch;
  const uint flags = base + p.cap;
  for (uint i = 0u; i < p.boxes_per_batch; ++i) kept[flags + i] = 0u;
  uint n = 0u;
  while (n < p.cap) {
    // The next box in score order: the best unvisited candidate, the lowest index on ties.
    uint best = p.boxes_per_batch;
    float best_score = 0.0;
    for (uint i = 0u; i < p.boxes_per_batch; ++i) {
      const float s = scores[scores_at + i];
      if (p.has_score_threshold != 0u && !(double(s) > p.score_threshold)) continue;
      if (kept[flags + i] != 0u) continue;
      if (best == p.boxes_per_batch || before(s, best_score)) {
        best = i;
        best_score = s;
      }
    }
    if (best == p.boxes_per_batch) break;
    kept[flags + best] = 1u;
    const Extent e = extent_of(batch, best);
    bool suppressed = false;
    for (uint k = 0u; k < n && !suppressed; ++k)
      suppressed = overlaps_too_much(e, extent_of(batch, kept[base + k]));
    if (!suppressed) kept[base + n++] = best;
  }
  counts[pair] = n;
}
