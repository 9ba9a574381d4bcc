#version 450
// y = f(x) for float32, f chosen by a push constant so one pipeline serves every unary op and
// activation. The ops, their codes and their formulas are the rows of the shared
// gpu_common/unary_ops.inc; the math they call is gpu_common/shader_math.glsl.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };

// Must match UnaryPushConstants in unary_elementwise.h.
layout(push_constant) uniform Params {
  uint op;      // UnaryOp
  uint count;   // elements
  float alpha;  // the op's first parameter (unary_ops.inc)
  float beta;   // its second
} p;

#include "float_bits.glsl"
#include "shader_math.glsl"

float apply(float v) {
  float alpha = p.alpha;
  float beta = p.beta;
  switch (int(p.op)) {
#define KILN_UNARY_OP(op, code, onnx, alpha_attr, alpha_default, beta_attr, beta_default, on_nan, value) case code: if (isnan(v)) return on_nan; return value;
#include "unary_ops.inc"
#undef KILN_UNARY_OP
  }
  return v;  // the host checks the op code, so no other value reaches here
}

void main() {
  const uint row = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint i = gl_GlobalInvocationID.y * row + gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  y[i] = apply(x[i]);
}
