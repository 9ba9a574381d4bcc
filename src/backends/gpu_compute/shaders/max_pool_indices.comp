#version 450
// MaxPool with its Indices output: see pool.glsl.
#extension GL_GOOGLE_include_directive : require
#define WITH_INDICES
#include "pool.glsl"
