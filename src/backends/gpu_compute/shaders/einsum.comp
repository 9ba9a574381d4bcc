#version 450
// Einsum of float32 operands (einsum.glsl).
#extension GL_GOOGLE_include_directive : require

#define T float
#include "einsum.glsl"
