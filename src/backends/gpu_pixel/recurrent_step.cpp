#include "backends/gpu_pixel/recurrent_step.h"

#include <algorithm>
#include <string>
#include <utility>

#include "backends/gpu_common/shader_sources.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/matmul.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/recurrent_projection.h"
#include "backends/gpu_pixel/region_copy.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kWhere = "RNN/GRU on OpenGL ES";
constexpr size_t kMaxActivations = 4;  // two directions of GRU's two functions

// The state before the first step: Y zero, h from initial_h (or zero).
constexpr const char* kInitShader = R"(
#ifdef HAS_INITIAL_H
uniform highp sampler2D initial_h;
uniform int initial_h_width;
#endif
uniform int u_y_count;

float element(int e) {
#ifdef HAS_INITIAL_H
  if (e >= u_y_count) return fetch_element(initial_h, initial_h_width, e - u_y_count);
#endif
  return 0.0;
}
)";

// What the step draws share: the sizes, where (time, direction, batch entry) vectors live in
// the node's layout, the entry's length and time step, the gate pre-activations.
constexpr const char* kCommonShader = R"(
uniform highp sampler2D state;  // [Y | h]
uniform int state_width;
uniform highp sampler2D projection;  // [directions, rows of X, gates * hidden]: X·Wᵀ
uniform int projection_width;
uniform highp sampler2D recurrence;  // R: [directions, gates * hidden, hidden]
uniform int recurrence_width;
uniform highp sampler2D lengths;  // [batch]: each entry's sequence length
uniform int lengths_width;
#ifdef HAS_BIAS
uniform highp sampler2D bias;  // B: [directions, 2 * gates * hidden], Wb then Rb
uniform int bias_width;
#endif
uniform int u_seq;
uniform int u_batch;
uniform int u_hidden;
uniform int u_directions;
uniform int u_gates;
uniform int u_step;     // steps each direction has done before this one
uniform int u_reverse;  // direction 0 runs backwards in time
uniform int u_y_count;  // 0 when Y is not wanted
uniform int u_clip_on;
uniform float u_clip;
uniform int u_kind[4];  // function i of direction d: entry d * (functions per direction) + i
uniform float u_alpha[4];
uniform float u_beta[4];

float activate(float v, int entry) {
  if (u_clip_on != 0) v = v < -u_clip ? -u_clip : (v > u_clip ? u_clip : v);
  return recurrent_activate(v, u_kind[entry], u_alpha[entry], u_beta[entry]);
}

int x_row(int t, int b) { return LAYOUT == 0 ? t * u_batch + b : b * u_seq + t; }
int state_offset(int d, int b) {
  return (LAYOUT == 0 ? d * u_batch + b : b * u_directions + d) * u_hidden;
}
int entry_length(int b) { return int(fetch_element(lengths, lengths_width, b)); }
// Direction d's time step now, for an entry of length n: a reversed direction runs from the
// entry's own last element.
int time_of(int d, int n) { return d == 1 || u_reverse != 0 ? n - 1 - u_step : u_step; }
float h_prev(int d, int b, int k) {
  return fetch_element(state, state_width, u_y_count + state_offset(d, b) + k);
}

// Gate g of unit j before its activation, without the recurrent product.
float input_part(int d, int b, int j, int t, int g) {
  int H = u_hidden;
  return fetch_element(projection, projection_width,
                       ((d * u_seq * u_batch + x_row(t, b)) * u_gates + g) * H + j);
}
#ifdef HAS_BIAS
float w_bias(int d, int j, int g) {
  return fetch_element(bias, bias_width, (d * 2 * u_gates + g) * u_hidden + j);
}
float r_bias(int d, int j, int g) {
  return fetch_element(bias, bias_width, ((d * 2 + 1) * u_gates + g) * u_hidden + j);
}
#endif
float r_row(int d, int j, int g, int k) {
  return fetch_element(recurrence, recurrence_width, ((d * u_gates + g) * u_hidden + j) * u_hidden + k);
}
)";

// GRU's first draw of a step: the update (z) and reset (r) gates, [2, state] in the state
// layout. Entries whose sequence has ended get zeros, which nothing reads.
constexpr const char* kGatesShader = R"(
float element(int e) {
  int S = u_directions * u_batch * u_hidden;
  int gate = e / S;  // 0: z, 1: r
  int s = e - gate * S;
  int j = s % u_hidden;
  int d, b;
  if (LAYOUT == 0) { b = (s / u_hidden) % u_batch; d = s / (u_hidden * u_batch); }
  else { d = (s / u_hidden) % u_directions; b = s / (u_hidden * u_directions); }
  int n = entry_length(b);
  if (u_step >= n) return 0.0;
  float acc = input_part(d, b, j, time_of(d, n), gate);
  for (int k = 0; k < u_hidden; ++k) acc += h_prev(d, b, k) * r_row(d, j, gate, k);
#ifdef HAS_BIAS
  acc += w_bias(d, j, gate) + r_bias(d, j, gate);
#endif
  return activate(acc, 2 * d);
}
)";

// The new hidden value of (d, b, j) at time t: RNN's cell, or GRU's candidate and update.
constexpr const char* kStepShader = R"(
#ifdef GRU
uniform highp sampler2D gates;  // [2, state]: z, then r
uniform int gates_width;
#endif

float new_h(int d, int b, int j, int t) {
#ifdef GRU
  int S = u_directions * u_batch * u_hidden;
  int row = state_offset(d, b);
  float sum = 0.0;
  for (int k = 0; k < u_hidden; ++k) {
    float hk = h_prev(d, b, k);
#ifndef LINEAR_BEFORE_RESET
    hk *= fetch_element(gates, gates_width, S + row + k);
#endif
    sum += hk * r_row(d, j, 2, k);
  }
  float v = input_part(d, b, j, t, 2);
  float reset = fetch_element(gates, gates_width, S + row + j);
#ifdef LINEAR_BEFORE_RESET
#ifdef HAS_BIAS
  sum += r_bias(d, j, 2);
#endif
  v += reset * sum;
#ifdef HAS_BIAS
  v += w_bias(d, j, 2);
#endif
#else
  v += sum;
#ifdef HAS_BIAS
  v += w_bias(d, j, 2) + r_bias(d, j, 2);
#endif
#endif
  float candidate = activate(v, 2 * d + 1);
  float z = fetch_element(gates, gates_width, row + j);
  return (1.0 - z) * candidate + z * h_prev(d, b, j);
#else
  float v = input_part(d, b, j, t, 0);
  for (int k = 0; k < u_hidden; ++k) v += h_prev(d, b, k) * r_row(d, j, 0, k);
#ifdef HAS_BIAS
  v += w_bias(d, j, 0) + r_bias(d, j, 0);
#endif
  return activate(v, d);
#endif
}

float element(int e) {
  int H = u_hidden;
  int j = e % H;
  if (e < u_y_count) {  // Y: only this step's slice of each running entry changes
    int rest = e / H;
    int t, d, b;
    if (LAYOUT == 0) {
      b = rest % u_batch; rest /= u_batch; d = rest % u_directions; t = rest / u_directions;
    } else {
      d = rest % u_directions; rest /= u_directions; t = rest % u_seq; b = rest / u_seq;
    }
    int n = entry_length(b);
    if (u_step >= n || t != time_of(d, n)) return fetch_element(state, state_width, e);
    return new_h(d, b, j, t);
  }
  int s = (e - u_y_count) / H;
  int d, b;
  if (LAYOUT == 0) { b = s % u_batch; d = s / u_batch; }
  else { d = s % u_directions; b = s / u_directions; }
  int n = entry_length(b);
  if (u_step >= n) return fetch_element(state, state_width, e);  // the entry carries its state
  return new_h(d, b, j, time_of(d, n));
}
)";

std::string define_if(bool on, const char* name) {
  return on ? std::string("#define ") + name + "\n" : std::string();
}

void expect_optional_count(const TextureTensor* t, int64_t count, const char* name) {
  if (t) expect_element_count(*t, count, kWhere, name);
}

void copy_out(Context& context, const TextureTensor& state, int64_t offset, TextureTensor* out) {
  if (!out) return;
  const Region region{{out->element_count()}, offset, {1}};
  RegionCopy(context).record(region, state, *out);
}

}  // namespace

void RecurrentDraws::record(const RecurrentProblem& p, std::span<const int64_t> lengths,
                            const RecurrentTensors& t) const {
  const recurrent::RecurrentShape& s = p.shape;
  const bool gru = p.cell == RecurrentCell::kGru;
  const int64_t H = s.hidden, D = s.directions, G = gru ? 3 : 1;
  const int64_t S = D * s.batch * H;
  check(D == 1 || D == 2, std::string(kWhere) + ": 1 or 2 directions, got " + std::to_string(D));
  check(s.gates == G, std::string(kWhere) + ": the gates do not match the cell");
  check(s.seq >= 0 && s.batch >= 0 && s.input >= 0 && H >= 0,
        std::string(kWhere) + ": negative sizes");
  check(p.activations.size() <= kMaxActivations &&
            p.activations.size() == static_cast<size_t>(D * (gru ? 2 : 1)),
        std::string(kWhere) + ": the activation functions do not match the cell and directions");
  check(static_cast<int64_t>(lengths.size()) == s.batch,
        std::string(kWhere) + ": one sequence length per batch entry");
  for (int64_t n : lengths)
    check(n >= 0 && n <= s.seq, std::string(kWhere) + ": a sequence length outside [0, seq]");
  const int64_t y_count = t.y ? s.seq * S : 0;
  const int64_t state_elements = y_count + S;
  const int64_t projection_elements = D * s.seq * s.batch * G * H;
  check(state_elements <= kIndexLimit && projection_elements <= kIndexLimit &&
            D * G * H * std::max(H, s.input) <= kIndexLimit && s.seq < (1 << 24),
        std::string(kWhere) + ": sizes exceed 32-bit indexing");
  expect_element_count(*t.x, s.seq * s.batch * s.input, kWhere, "X");
  expect_element_count(*t.w, D * G * H * s.input, kWhere, "W");
  expect_element_count(*t.r, D * G * H * H, kWhere, "R");
  expect_optional_count(t.b, D * 2 * G * H, "B");
  expect_optional_count(t.initial_h, S, "initial_h");
  expect_optional_count(t.y, s.seq * S, "Y");
  expect_optional_count(t.y_h, S, "Y_h");
  if (S == 0) return;  // every output is empty

  TextureTensor state(context_, state_elements);
  {
    const Program& program = context_.programs().get(
        "recurrent_init", std::to_string(!!t.initial_h), define_if(t.initial_h, "HAS_INITIAL_H"),
        kInitShader + std::string(kElementMain));
    DrawInput inputs[1] = {{"initial_h", t.initial_h}};
    draw(context_, program, state, std::span(inputs, t.initial_h ? 1 : 0),
         [&] { program.set("u_y_count", static_cast<int>(y_count)); });
  }

  if (s.seq > 0) {
    TextureTensor projection(context_, projection_elements);
    Matmul(context_).record(recurrent_projection_params(s.seq * s.batch, s.input, G * H, D), *t.x,
                            *t.w, nullptr, projection);
    const std::vector<float> length_values(lengths.begin(), lengths.end());
    TextureTensor length_texture(context_, s.batch);
    upload(length_texture, length_values);

    int kinds[kMaxActivations] = {};
    float alpha[kMaxActivations] = {}, beta[kMaxActivations] = {};
    for (size_t i = 0; i < p.activations.size(); ++i) {
      kinds[i] = static_cast<int>(p.activations[i].kind);
      alpha[i] = p.activations[i].alpha;
      beta[i] = p.activations[i].beta;
    }
    const std::string common =
        std::string(shader_math_glsl()) + std::string(recurrent_activation_glsl()) + kCommonShader;
    const std::string defines = "#define LAYOUT " + std::to_string(s.layout) + "\n" +
                                define_if(t.b, "HAS_BIAS") + define_if(gru, "GRU") +
                                define_if(p.linear_before_reset, "LINEAR_BEFORE_RESET");
    const std::string variant = std::to_string(s.layout) + std::to_string(!!t.b) +
                                std::to_string(gru) + std::to_string(p.linear_before_reset);
    const Program& step_program = context_.programs().get("recurrent_step", variant, defines,
                                                          common + kStepShader + kElementMain);
    const Program* gates_program =
        gru ? &context_.programs().get("recurrent_gates", variant, defines,
                                       common + kGatesShader + kElementMain)
            : nullptr;
    // Each element loops over the hidden units once; a texel holds four elements.
    const int64_t loop_steps = 4 * H;

    TextureTensor next(context_, state_elements);
    TextureTensor gates = gru ? TextureTensor(context_, 2 * S) : TextureTensor();
    for (int64_t step = 0; step < s.seq; ++step) {
      auto set_uniforms = [&](const Program& program) {
        program.set("u_seq", static_cast<int>(s.seq));
        program.set("u_batch", static_cast<int>(s.batch));
        program.set("u_hidden", static_cast<int>(H));
        program.set("u_directions", static_cast<int>(D));
        program.set("u_gates", static_cast<int>(G));
        program.set("u_step", static_cast<int>(step));
        program.set("u_reverse", p.reverse ? 1 : 0);
        program.set("u_y_count", static_cast<int>(y_count));
        program.set("u_clip_on", p.has_clip ? 1 : 0);
        program.set("u_clip", p.clip);
        program.set("u_kind", std::span<const int>(kinds));
        program.set("u_alpha", std::span<const float>(alpha));
        program.set("u_beta", std::span<const float>(beta));
      };
      DrawInput inputs[5] = {{"state", &state},
                             {"projection", &projection},
                             {"recurrence", t.r},
                             {"lengths", &length_texture}};
      size_t count = 4;
      if (t.b) inputs[count++] = {"bias", t.b};
      if (gru) {
        draw(
            context_, *gates_program, gates, std::span(inputs, count),
            [&] { set_uniforms(*gates_program); }, loop_steps);
      }
      DrawInput step_inputs[6];
      std::copy(inputs, inputs + count, step_inputs);
      if (gru) step_inputs[count++] = {"gates", &gates};
      draw(
          context_, step_program, next, std::span(step_inputs, count),
          [&] { set_uniforms(step_program); }, loop_steps);
      std::swap(state, next);
    }
  }

  copy_out(context_, state, 0, t.y);
  copy_out(context_, state, y_count, t.y_h);
}

}  // namespace kiln::gpu_pixel
