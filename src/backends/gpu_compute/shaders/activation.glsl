// The fused activation of matmul.comp and conv*.comp; codes match kiln::FusedActivation.
// Comparisons rather than max/min, so NaN passes through as it does on the CPU.
// HardSwish and SiLU follow the CPU's formulas (backends/cpu/conv_epilogue.cpp).
const uint ACT_NONE = 0, ACT_RELU = 1, ACT_CLIP = 2, ACT_HARDSWISH = 3, ACT_SILU = 4;

float activate(float v, uint kind, float lo, float hi) {
  if (kind == ACT_RELU) return v < 0.0 ? 0.0 : v;
  if (kind == ACT_CLIP) return v < lo ? lo : (v > hi ? hi : v);
  if (kind == ACT_HARDSWISH) {
    const float s = v / 6.0 + 0.5;
    return v * (s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s));
  }
  if (kind == ACT_SILU) return v / (1.0 + exp(-v));
  return v;
}
