#version 450
// One time step of an ONNX LSTM (default activations: f = sigmoid, g = h = tanh), for every
// direction at once: one invocation per (direction, batch entry, hidden unit) does the four dot
// products of R's rows with the previous hidden state, adds the input projection, the biases and
// the peepholes, and writes the unit's new cell state and its hidden state into Y's slice of the
// step. Gate order in W, R and B is i, o, f, c; peepholes are i, o, f.
//
// The previous hidden state is Y's slice of the previous step (the dispatches are separated by
// barriers), or initial_h at the first step. Each invocation reads and writes only its own
// unit's cell state, so `cell` is updated in place; the host puts initial_c there before the
// first step (a copy, which keeps the bindings within the 8 storage buffers kiln's pipelines
// get).

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

// [seq * batch, directions * 4 * hidden]: X·Wᵀ of every step, directions side by side.
layout(std430, set = 0, binding = 0) readonly buffer Projection { float projection[]; };
layout(std430, set = 0, binding = 1) readonly buffer R { float r[]; };            // [dirs, 4H, H]
layout(std430, set = 0, binding = 2) readonly buffer B { float bias[]; };         // [dirs, 8H]
layout(std430, set = 0, binding = 3) readonly buffer P { float peephole[]; };     // [dirs, 3H]
layout(std430, set = 0, binding = 4) readonly buffer H0 { float initial_h[]; };   // [dirs, batch, H]
layout(std430, set = 0, binding = 5) buffer Y { float y[]; };                     // [seq, dirs, batch, H]
layout(std430, set = 0, binding = 6) buffer Cell { float cell[]; };               // [dirs, batch, H]
layout(std430, set = 0, binding = 7) writeonly buffer YH { float y_h[]; };        // [dirs, batch, H]

// Must match LstmStepPushConstants in lstm.h.
layout(push_constant) uniform Params {
  uint seq, batch, hidden, directions;
  uint step;              // 0 .. seq-1: how many steps each direction has done before this one
  uint reverse_forward;   // 1 when direction 0 runs backwards in time (direction="reverse")
  uint has_bias, has_peepholes, has_initial_h, has_initial_c;
  uint write_final_h;     // 1 to store the last step's hidden state into y_h
} p;

#include "float_bits.glsl"
#include "shader_math.glsl"

void main() {
  const uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                     gl_GlobalInvocationID.x;
  const uint H = p.hidden;
  if (index >= p.directions * p.batch * H) return;
  const uint j = index % H;
  const uint b = (index / H) % p.batch;
  const uint d = index / (H * p.batch);

  const bool reversed = d == 1 || p.reverse_forward != 0;
  const uint t = reversed ? p.seq - 1 - p.step : p.step;
  const uint state = (d * p.batch + b) * H;  // this (direction, batch) row of the states

  // The four gate pre-activations: projection + R·h_prev (+ Wb + Rb).
  const uint gates = 4 * H;
  const uint projection_row = (t * p.batch + b) * p.directions * gates + d * gates;
  vec4 z = vec4(projection[projection_row + j], projection[projection_row + H + j],
                projection[projection_row + 2 * H + j], projection[projection_row + 3 * H + j]);
  const bool has_h_prev = p.step > 0 || p.has_initial_h != 0;
  if (has_h_prev) {
    const uint t_prev = reversed ? t + 1 : t - 1;
    const uint r_base = d * gates * H;
    vec4 sum = vec4(0.0);
    for (uint k = 0; k < H; ++k) {
      const float h = p.step > 0 ? y[((t_prev * p.directions + d) * p.batch + b) * H + k]
                                 : initial_h[state + k];
      sum += h * vec4(r[r_base + j * H + k], r[r_base + (H + j) * H + k],
                      r[r_base + (2 * H + j) * H + k], r[r_base + (3 * H + j) * H + k]);
    }
    z += sum;
  }
  if (p.has_bias != 0) {
    const uint w = d * 2 * gates, rb = w + gates;
    z += vec4(bias[w + j] + bias[rb + j], bias[w + H + j] + bias[rb + H + j],
              bias[w + 2 * H + j] + bias[rb + 2 * H + j],
              bias[w + 3 * H + j] + bias[rb + 3 * H + j]);
  }

  const float c_prev = p.step > 0 || p.has_initial_c != 0 ? cell[state + j] : 0.0;
  vec3 peep = vec3(0.0);  // i, o, f
  if (p.has_peepholes != 0) {
    const uint base = d * 3 * H;
    peep = vec3(peephole[base + j], peephole[base + H + j], peephole[base + 2 * H + j]);
  }
  const float i = sigmoid_(z.x + peep.x * c_prev);
  const float f = sigmoid_(z.z + peep.z * c_prev);
  const float c = f * c_prev + i * tanh_(z.w);
  // The output gate's peephole sees the new cell state.
  const float o = sigmoid_(z.y + peep.y * c);
  const float h = o * tanh_(c);

  cell[state + j] = c;
  y[((t * p.directions + d) * p.batch + b) * H + j] = h;
  if (p.write_final_h != 0 && p.step == p.seq - 1) y_h[state + j] = h;
}
