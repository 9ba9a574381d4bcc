// The text of the GLSL files both GPU backends share, embedded at build time: the OpenGL ES
// backend compiles its programs when it runs (glslc reads the same files for the Vulkan shaders).
//
//   programs.get("lstm_step", variant, defines, std::string(shader_math_glsl()) + kShader);
#pragma once

#include <string_view>

namespace kiln {

// shader_math.glsl: exp_, expm1_, tanh_, sigmoid_, log_, log1p_, softplus_, sin_cos, erf_ and
// gelu_, to about 1e-7 relative. It needs nan_value(), inf_value(), exponent_of() and
// scale_by_pow2() defined before it.
std::string_view shader_math_glsl();

// recurrent_activation.glsl: recurrent_activate(v, kind, alpha, beta), RNN's, GRU's and LSTM's
// functions by ActivationKind value. It needs shader_math.glsl before it.
std::string_view recurrent_activation_glsl();

// unary_ops.inc: the KILN_UNARY_OP rows; define the macro before this text and #undef it after.
std::string_view unary_ops_glsl();

}  // namespace kiln
