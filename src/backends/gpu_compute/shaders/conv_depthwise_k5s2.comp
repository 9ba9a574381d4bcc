#version 450
// Depthwise conv 5 wide, stride 2, no dilation along x; see conv_depthwise.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define ROW_KW 5
#define ROW_S 2
#include "conv_depthwise.glsl"
