#version 450
// Depthwise conv 3 wide, stride 2, no dilation along x; see conv_depthwise.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define ROW_KW 3
#define ROW_S 2
#include "conv_depthwise.glsl"
