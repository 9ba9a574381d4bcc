#version 450
// Einsum of float64 operands (einsum.glsl); needs shaderFloat64, which the host checks before
// creating the pipeline.
#extension GL_GOOGLE_include_directive : require

#define T double
#include "einsum.glsl"
