#include "backends/gpu_pixel/lstm.h"

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

// The state before the first step: Y zero, h and c from initial_h and initial_c (or zero).
constexpr const char* kInitShader = R"(
#ifdef HAS_INITIAL_H
uniform highp sampler2D initial_h;
uniform int initial_h_width;
#endif
#ifdef HAS_INITIAL_C
uniform highp sampler2D initial_c;
uniform int initial_c_width;
#endif
uniform int u_y_count;
uniform int u_state_count;

float element(int e) {
  int s = e - u_y_count;
  if (s < 0) return 0.0;
  if (s < u_state_count) {
#ifdef HAS_INITIAL_H
    return fetch_element(initial_h, initial_h_width, s);
#endif
  } else {
#ifdef HAS_INITIAL_C
    return fetch_element(initial_c, initial_c_width, s - u_state_count);
#endif
  }
  return 0.0;
}
)";

// One time step of every direction, from the previous state texture. ALIGNED (hidden a
// multiple of 4) reads R's rows and h a texel at a time: both then start on texel boundaries.
constexpr const char* kStepShader = R"(
uniform highp sampler2D state;
uniform int state_width;
uniform highp sampler2D projection;  // [directions, seq * batch, 4 * hidden]: X·Wᵀ
uniform int projection_width;
uniform highp sampler2D recurrence;  // R: [directions, 4 * hidden, hidden]
uniform int recurrence_width;
#ifdef HAS_BIAS
uniform highp sampler2D bias;  // B: [directions, 8 * hidden], Wb then Rb
uniform int bias_width;
#endif
#ifdef HAS_PEEPHOLES
uniform highp sampler2D peepholes;  // P: [directions, 3 * hidden], i, o, f
uniform int peepholes_width;
#endif
uniform int u_hidden;
uniform int u_batch;
uniform int u_rows;  // seq * batch
uniform int u_y_count;
uniform int u_state_count;
uniform ivec2 u_time;  // this step's time step per direction

// Gate g (i, o, f, c) of unit j before its activation and peephole. Wb and Rb are added here
// rather than in the projection: Matmul's C has no batch stride, so one draw for both directions
// could not give each its own bias.
float gate(int d, int b, int j, int g) {
  int H = u_hidden;
  float acc = fetch_element(projection, projection_width,
                            ((d * u_rows + u_time[d] * u_batch + b) * 4 + g) * H + j);
#ifdef HAS_BIAS
  int wb = d * 8 * H + g * H + j;
  acc += fetch_element(bias, bias_width, wb) + fetch_element(bias, bias_width, wb + 4 * H);
#endif
  int row = ((d * 4 + g) * H + j) * H;
  int h = u_y_count + (d * u_batch + b) * H;
#ifdef ALIGNED
  for (int k = 0; k < H; k += 4) {
    acc += dot(fetch_texel(recurrence, recurrence_width, (row + k) >> 2),
               fetch_texel(state, state_width, (h + k) >> 2));
  }
#else
  for (int k = 0; k < H; ++k) {
    acc += fetch_element(recurrence, recurrence_width, row + k) *
           fetch_element(state, state_width, h + k);
  }
#endif
  return acc;
}

// The new (h, c) of state entry s = (d * batch + b) * hidden + j.
vec2 cell(int s) {
  int H = u_hidden;
  int j = s % H;
  int b = (s / H) % u_batch;
  int d = s / (H * u_batch);
  float c_prev = fetch_element(state, state_width, u_y_count + u_state_count + s);
  float i = gate(d, b, j, 0), o = gate(d, b, j, 1), f = gate(d, b, j, 2);
  float candidate = tanh_(gate(d, b, j, 3));
#ifdef HAS_PEEPHOLES
  int p = d * 3 * H + j;
  i += fetch_element(peepholes, peepholes_width, p) * c_prev;
  f += fetch_element(peepholes, peepholes_width, p + 2 * H) * c_prev;
#endif
  float c = sigmoid_(f) * c_prev + sigmoid_(i) * candidate;
#ifdef HAS_PEEPHOLES
  o += fetch_element(peepholes, peepholes_width, p + H) * c;  // sees the new cell state
#endif
  return vec2(sigmoid_(o) * tanh_(c), c);
}

float element(int e) {
  if (e < u_y_count) {
    int s = e % u_state_count;
    int d = s / (u_hidden * u_batch);
    if (e / u_state_count != u_time[d]) return fetch_element(state, state_width, e);
    return cell(s).x;
  }
  int s = e - u_y_count;
  return s < u_state_count ? cell(s).x : cell(s - u_state_count).y;
}
)";

std::string define_if(bool on, const char* name) {
  return on ? std::string("#define ") + name + "\n" : std::string();
}

constexpr const char* kWhere = "LSTM on OpenGL ES";

// Absent operands (null) pass.
void expect_optional_count(const TextureTensor* t, int64_t count, const char* name) {
  if (t) expect_element_count(*t, count, kWhere, name);
}

void copy_out(Context& context, const TextureTensor& state, int64_t offset, TextureTensor* out) {
  if (!out) return;
  const Region region{{out->element_count()}, offset, {1}};
  RegionCopy(context).record(region, state, *out);
}

}  // namespace

void Lstm::record(const LstmShape& shape, std::array<bool, 2> reversed,
                  const LstmTensors& t) const {
  const int64_t H = shape.hidden, D = shape.directions, S = shape.state_count();
  check(D == 1 || D == 2, std::string(kWhere) + ": 1 or 2 directions, got " + std::to_string(D));
  check(shape.seq >= 0 && shape.batch >= 0 && shape.input >= 0 && H >= 0,
        std::string(kWhere) + ": negative sizes");
  const int64_t y_count = t.y ? shape.y_count() : 0;
  const int64_t state_elements = y_count + 2 * S;
  const int64_t projection_elements = D * shape.seq * shape.batch * 4 * H;
  check(state_elements <= kIndexLimit && projection_elements <= kIndexLimit &&
            D * 4 * H * std::max(H, shape.input) <= kIndexLimit,
        std::string(kWhere) + ": sizes exceed 32-bit indexing");
  expect_element_count(*t.x, shape.seq * shape.batch * shape.input, kWhere, "X");
  expect_element_count(*t.w, D * 4 * H * shape.input, kWhere, "W");
  expect_element_count(*t.r, D * 4 * H * H, kWhere, "R");
  expect_optional_count(t.b, D * 8 * H, "B");
  expect_optional_count(t.p, D * 3 * H, "P");
  expect_optional_count(t.initial_h, S, "initial_h");
  expect_optional_count(t.initial_c, S, "initial_c");
  expect_optional_count(t.y, shape.y_count(), "Y");
  expect_optional_count(t.y_h, S, "Y_h");
  expect_optional_count(t.y_c, S, "Y_c");
  if (S == 0) return;  // every output is empty

  TextureTensor state(context_, state_elements);
  {
    const std::string defines =
        define_if(t.initial_h, "HAS_INITIAL_H") + define_if(t.initial_c, "HAS_INITIAL_C");
    const Program& program = context_.programs().get(
        "lstm_init", std::to_string(!!t.initial_h) + std::to_string(!!t.initial_c), defines,
        std::string(kInitShader) + kElementMain);
    DrawInput inputs[2];
    size_t count = 0;
    if (t.initial_h) inputs[count++] = {"initial_h", t.initial_h};
    if (t.initial_c) inputs[count++] = {"initial_c", t.initial_c};
    draw(context_, program, state, std::span(inputs, count), [&] {
      program.set("u_y_count", static_cast<int>(y_count));
      program.set("u_state_count", static_cast<int>(S));
    });
  }

  if (shape.seq > 0) {
    TextureTensor projection(context_, projection_elements);
    Matmul(context_).record(
        recurrent_projection_params(shape.seq * shape.batch, shape.input, 4 * H, D), *t.x, *t.w,
        nullptr, projection);

    const bool aligned = H % 4 == 0;
    const std::string variant =
        std::to_string(!!t.b) + std::to_string(!!t.p) + std::to_string(aligned);
    const std::string defines = define_if(t.b, "HAS_BIAS") + define_if(t.p, "HAS_PEEPHOLES") +
                                define_if(aligned, "ALIGNED");
    const Program& program =
        context_.programs().get("lstm_step", variant, defines,
                                std::string(shader_math_glsl()) + kStepShader + kElementMain);
    TextureTensor next(context_, state_elements);
    for (int64_t step = 0; step < shape.seq; ++step) {
      DrawInput inputs[5] = {{"state", &state}, {"projection", &projection}, {"recurrence", t.r}};
      size_t count = 3;
      if (t.b) inputs[count++] = {"bias", t.b};
      if (t.p) inputs[count++] = {"peepholes", t.p};
      const int times[2] = {static_cast<int>(reversed[0] ? shape.seq - 1 - step : step),
                            static_cast<int>(reversed[1] ? shape.seq - 1 - step : step)};
      draw(context_, program, next, std::span(inputs, count), [&] {
        program.set("u_hidden", static_cast<int>(H));
        program.set("u_batch", static_cast<int>(shape.batch));
        program.set("u_rows", static_cast<int>(shape.seq * shape.batch));
        program.set("u_y_count", static_cast<int>(y_count));
        program.set("u_state_count", static_cast<int>(S));
        glUniform2iv(program.location("u_time"), 1, times);
      });
      std::swap(state, next);
    }
  }

  copy_out(context_, state, 0, t.y);
  copy_out(context_, state, y_count, t.y_h);
  copy_out(context_, state, y_count + S, t.y_c);
}

}  // namespace kiln::gpu_pixel
