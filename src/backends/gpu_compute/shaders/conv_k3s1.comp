#version 450
// Conv as an implicit GEMM for kernels 3 wide, stride 1, no dilation along x; see conv.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#define ROW_KW 3
#define ROW_S 1
#include "conv.glsl"
