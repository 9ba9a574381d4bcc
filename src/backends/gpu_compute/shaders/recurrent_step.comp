#version 450
// One time step of an ONNX RNN or GRU, for every direction at once: one invocation per
// (direction, batch entry, hidden unit). The input projection X·Wᵀ of all steps is computed
// before the first step (the MatMul kernel); a step adds the recurrent product R·h_prev and the
// biases, clips, applies the node's activation functions and writes Y's slice of the step.
//
//   phase 0 (RNN):            h = f(x + R·h_prev + Wb + Rb)
//   phase 1 (GRU gates):      z, r = f(x + R·h_prev + Wb + Rb) for the update and reset rows
//   phase 2 (GRU candidate):  h~ = g(x + R_h·(r ⊙ h_prev) + Rbh + Wbh)   (linear_before_reset 0)
//                             h~ = g(x + r ⊙ (R_h·h_prev + Rbh) + Wbh)   (linear_before_reset 1)
//                             h = (1 - z) ⊙ h~ + z ⊙ h_prev
// The candidate needs every unit's reset gate, so a GRU step is two dispatches (a barrier
// between them). The hidden state lives in two slots of the scratch buffer: step s reads slot
// s % 2 (initial_h, or zeros, at step 0) and writes slot (s + 1) % 2, so a batch entry whose
// sequence (sequence_lens) has ended carries its state unchanged while Y gets zeros there.

#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0) in;

// [rows of X, directions * gates * hidden]: X·Wᵀ of every step, directions side by side; the
// row of (time t, batch entry b) is X's row.
layout(std430, set = 0, binding = 0) readonly buffer Projection { float projection[]; };
layout(std430, set = 0, binding = 1) readonly buffer R { float r[]; };          // [dirs, G*H, H]
layout(std430, set = 0, binding = 2) readonly buffer B { float bias[]; };       // [dirs, 2*G*H]
layout(std430, set = 0, binding = 3) readonly buffer Lens { int lens[]; };      // [batch], int32/64
layout(std430, set = 0, binding = 4) readonly buffer H0 { float initial_h[]; }; // node's layout
layout(std430, set = 0, binding = 5) writeonly buffer Y { float y[]; };         // node's layout
// [2, dirs, batch, H] hidden-state slots, then GRU's [dirs, batch, 2H] update and reset gates.
layout(std430, set = 0, binding = 6) buffer State { float state[]; };
layout(std430, set = 0, binding = 7) writeonly buffer YH { float y_h[]; };      // node's layout

// Must match RecurrentStepPushConstants in recurrent_step.h.
layout(push_constant) uniform Params {
  uint seq, batch, hidden, directions;
  uint step;         // 0 .. seq-1: how many steps each direction has done before this one
  uint phase;        // 0 RNN, 1 GRU gates, 2 GRU candidate
  uint flags;        // FLAG_* below
  float clip;
  // Function i of direction d is entry d * (functions per direction) + i.
  uint kinds;        // the entries' ActivationKind, 4 bits each (entry e at bit 4e)
  float alpha[4], beta[4];  // the entries' parameters
} p;

const uint FLAG_REVERSE = 1u;       // direction="reverse": direction 0 runs backwards in time
const uint FLAG_LAYOUT1 = 2u;       // X [batch, seq, input], Y [batch, seq, dirs, H], states [batch, dirs, H]
const uint FLAG_BIAS = 4u;
const uint FLAG_INITIAL_H = 8u;
const uint FLAG_LENS = 16u;
const uint FLAG_LENS_INT64 = 32u;   // sequence_lens is int64: its low words are read
const uint FLAG_CLIP = 64u;
const uint FLAG_LINEAR_BEFORE_RESET = 128u;
const uint FLAG_WRITE_FINAL_H = 256u;

#include "float_bits.glsl"
#include "shader_math.glsl"
#include "recurrent_activation.glsl"

bool has(uint flag) { return (p.flags & flag) != 0u; }

// Entry `entry`'s function (recurrent_activation.glsl).
float activate(float v, uint entry) {
  return recurrent_activate(v, int((p.kinds >> (4u * entry)) & 15u), p.alpha[entry], p.beta[entry]);
}

float clipped(float v) {
  if (!has(FLAG_CLIP)) return v;
  return v < -p.clip ? -p.clip : (v > p.clip ? p.clip : v);
}

uint x_row(uint t, uint b) { return has(FLAG_LAYOUT1) ? b * p.seq + t : t * p.batch + b; }
uint y_offset(uint t, uint d, uint b) {
  return (has(FLAG_LAYOUT1) ? (b * p.seq + t) * p.directions + d
                            : (t * p.directions + d) * p.batch + b) * p.hidden;
}
uint state_offset(uint d, uint b) {
  return (has(FLAG_LAYOUT1) ? b * p.directions + d : d * p.batch + b) * p.hidden;
}

void main() {
  const uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
                     gl_GlobalInvocationID.x;
  const uint H = p.hidden;
  const uint states = p.directions * p.batch * H;
  if (index >= states) return;
  const uint j = index % H;
  const uint b = (index / H) % p.batch;
  const uint d = index / (H * p.batch);
  const uint row = (d * p.batch + b) * H;  // this (direction, batch entry) in the state slots

  // The entry's length (the host checked it lies in [0, seq]); a reversed direction runs from
  // the entry's own last element.
  int entry_length = int(p.seq);
  if (has(FLAG_LENS)) entry_length = lens[has(FLAG_LENS_INT64) ? 2u * b : b];
  const bool in_sequence = int(p.step) < entry_length;
  const bool reversed = d == 1u || has(FLAG_REVERSE);
  const uint t = reversed ? uint(entry_length) - 1u - p.step : p.step;

  const uint previous = (p.step & 1u) * states + row;
  const uint next = ((p.step + 1u) & 1u) * states + row;
  const bool from_initial = p.step == 0u;
  const bool zero_initial = from_initial && !has(FLAG_INITIAL_H);
  const uint initial = state_offset(d, b);
  const float h_prev = zero_initial ? 0.0
                       : from_initial ? initial_h[initial + j]
                                      : state[previous + j];

  const uint G = p.phase == 0u ? 1u : 3u;
  const uint gates = 2u * states;  // GRU's gates follow the two state slots
  const uint gate_row = gates + (d * p.batch + b) * 2u * H;
  const uint r_base = d * G * H * H;
  const uint w_bias = d * 2u * G * H, r_bias = w_bias + G * H;

  if (p.phase == 1u) {
    if (!in_sequence) return;
    const uint x = x_row(t, b) * p.directions * G * H + d * G * H;
    float z = projection[x + j], rg = projection[x + H + j];
    if (!zero_initial) {
      float sum_z = 0.0, sum_r = 0.0;
      for (uint k = 0u; k < H; ++k) {
        const float h = from_initial ? initial_h[initial + k] : state[previous + k];
        sum_z += h * r[r_base + j * H + k];
        sum_r += h * r[r_base + (H + j) * H + k];
      }
      z += sum_z;
      rg += sum_r;
    }
    if (has(FLAG_BIAS)) {
      z += bias[w_bias + j] + bias[r_bias + j];
      rg += bias[w_bias + H + j] + bias[r_bias + H + j];
    }
    state[gate_row + j] = activate(clipped(z), 2u * d);
    state[gate_row + H + j] = activate(clipped(rg), 2u * d);
    return;
  }

  float h = h_prev;
  if (in_sequence) {
    // The output rows: RNN's only gate, GRU's candidate (the third).
    const uint first = p.phase == 0u ? 0u : 2u * H;
    const uint x = x_row(t, b) * p.directions * G * H + d * G * H + first;
    const uint r_row = r_base + (first + j) * H;
    const bool gru = p.phase == 2u;
    float sum = 0.0;
    if (!zero_initial) {
      for (uint k = 0u; k < H; ++k) {
        float hk = from_initial ? initial_h[initial + k] : state[previous + k];
        if (gru && !has(FLAG_LINEAR_BEFORE_RESET)) hk *= state[gate_row + H + k];
        sum += hk * r[r_row + k];
      }
    }
    float v = projection[x + j];
    if (gru && has(FLAG_LINEAR_BEFORE_RESET)) {
      const float rh = has(FLAG_BIAS) ? sum + bias[r_bias + first + j] : sum;
      v += state[gate_row + H + j] * rh;
      if (has(FLAG_BIAS)) v += bias[w_bias + first + j];
    } else {
      v += sum;
      if (has(FLAG_BIAS)) v += bias[w_bias + first + j] + bias[r_bias + first + j];
    }
    const float candidate = activate(clipped(v), gru ? 2u * d + 1u : d);
    if (gru) {
      const float z = state[gate_row + j];
      h = (1.0 - z) * candidate + z * h_prev;
    } else {
      h = candidate;
    }
    y[y_offset(t, d, b) + j] = h;
  } else {
    y[y_offset(p.step, d, b) + j] = 0.0;  // times past the entry's length are zero
  }
  state[next + j] = h;
  if (has(FLAG_WRITE_FINAL_H) && p.step == p.seq - 1u) y_h[initial + j] = h;
}
