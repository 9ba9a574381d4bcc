// The fused activation of matmul.comp and conv*.comp; codes match kiln::FusedActivation.
// Comparisons rather than max/min, so NaN passes through as it does on the CPU.
const uint ACT_NONE = 0, ACT_RELU = 1, ACT_CLIP = 2;

float activate(float v, uint kind, float lo, float hi) {
  if (kind == ACT_RELU) return v < 0.0 ? 0.0 : v;
  if (kind == ACT_CLIP) return v < lo ? lo : (v > hi ? hi : v);
  return v;
}
