#version 450
// MaxPool, AveragePool and LpPool: see pool.glsl.
#extension GL_GOOGLE_include_directive : require
#include "pool.glsl"
