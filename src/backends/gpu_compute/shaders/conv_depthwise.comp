#version 450
// Depthwise conv, any kernel, stride and dilation; see conv_depthwise.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define ROW_KW 0
#define ROW_S 0
#include "conv_depthwise.glsl"
