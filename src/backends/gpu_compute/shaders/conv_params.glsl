// The push constants of conv.comp, conv_depthwise.comp and conv_transpose.comp; must match
// ConvPushConstants in conv.h. Spatial axes are (z, y, x), lower ranks padded in front with
// size-1 axes. For Conv, `in` is X's spatial shape and `out` Y's; for ConvTranspose, `in` is Y's
// (the image) and `out` X's (the window positions), as in WindowGeometry.
layout(push_constant) uniform Params {
  uint in_[3];
  uint out_[3];
  uint kernel[3];
  uint stride[3];
  uint dilation[3];
  int pad[3];  // begin pads
  uint cg;     // X channels per group
  uint mg;     // Y channels per group
  uint groups;
  uint has_bias;
  uint activation;
  float act_min, act_max;
  uint has_residual;  // conv.glsl, conv_depthwise.glsl: add Residual (Y's layout) before activating
} p;
