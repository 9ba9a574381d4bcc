#include "backends/gpu_pixel/reduce.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/folded_lines.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// OP_<NAME> selects the op.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;

// Output e reduces line e.
float element(int e) {
  int index = line_start(e);
#if defined(OP_MAX) || defined(OP_LOG_SUM_EXP)
  float acc = -inf_value();
#elif defined(OP_MIN)
  float acc = inf_value();
#elif defined(OP_PROD)
  float acc = 1.0;
#else
  float acc = 0.0;
#endif
  for (int r = 0; r < u_axis_len; ++r, index += u_inner) {
    float v = fetch_element(x, x_width, index);
#if defined(OP_MAX) || defined(OP_LOG_SUM_EXP)
    // NaN propagates (GLSL's max leaves NaN undefined).
    if (isnan(v) || v > acc) acc = v;
    if (isnan(acc)) break;
#elif defined(OP_MIN)
    if (isnan(v) || v < acc) acc = v;
    if (isnan(acc)) break;
#elif defined(OP_PROD)
    acc *= v;
#elif defined(OP_L1)
    acc += abs(v);
#elif defined(OP_L2) || defined(OP_SUM_SQUARE)
    acc += v * v;
#else
    acc += v;
#endif
  }
  // GLSL leaves 0 / 0 and log of values <= 0 undefined: the CPU's results are spelled out.
#if defined(OP_MEAN)
  return u_axis_len == 0 ? nan_value() : acc / float(u_axis_len);
#elif defined(OP_L2)
  return sqrt(acc);
#elif defined(OP_LOG_SUM)
  return acc == 0.0 ? -inf_value() : (acc < 0.0 ? nan_value() : log(acc));
#elif defined(OP_LOG_SUM_EXP)
  // An infinite or NaN maximum (an empty line leaves -inf) is the result itself; x - max would
  // be NaN there.
  float shift = acc;
  if (isinf(shift) || isnan(shift)) return shift;
  float sum = 0.0;
  index = line_start(e);
  for (int r = 0; r < u_axis_len; ++r, index += u_inner) {
    sum += exp(fetch_element(x, x_width, index) - shift);
  }
  return log(sum) + shift;
#else
  return acc;
#endif
}
)";

// The shader's #define for each op; ArgMax / ArgMin have no GL kernel.
const char* define_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "OP_SUM";
    case ReduceOp::Mean:
      return "OP_MEAN";
    case ReduceOp::Max:
      return "OP_MAX";
    case ReduceOp::Min:
      return "OP_MIN";
    case ReduceOp::Prod:
      return "OP_PROD";
    case ReduceOp::L1:
      return "OP_L1";
    case ReduceOp::L2:
      return "OP_L2";
    case ReduceOp::LogSum:
      return "OP_LOG_SUM";
    case ReduceOp::LogSumExp:
      return "OP_LOG_SUM_EXP";
    case ReduceOp::SumSquare:
      return "OP_SUM_SQUARE";
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      break;
  }
  throw Error(std::string("reduce on OpenGL ES: no kernel for ") + op_type_of(op));
}

}  // namespace

void Reduce::record(ReduceOp op, const ReduceShape& s, const TextureTensor& x,
                    TextureTensor& y) const {
  const std::string where = std::string(op_type_of(op)) + " on OpenGL ES";
  check(s.outer >= 0 && s.axis_len >= 0 && s.inner >= 0, where + ": negative size");
  const int64_t y_count = s.lines();
  const int64_t x_count = s.elements();
  check(x_count <= kIndexLimit && y_count <= kIndexLimit && s.axis_len <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
  expect_element_count(y, y_count, where, "Y");
  expect_element_count(x, x_count, where, "X");
  if (y_count == 0) return;
  const Program& program = context_.programs().get(
      "reduce", op_type_of(op), std::string("#define ") + define_of(op) + "\n",
      std::string(kLineIndexing) + kShader + kElementMain);
  // An empty reduction reads nothing; X (then empty) stays unbound, as draw() refuses it.
  std::vector<DrawInput> inputs;
  if (x_count > 0) inputs.push_back({"x", &x});
  // Four outputs per fragment; LogSumExp walks its line twice (maximum, then the sum).
  const int64_t passes = op == ReduceOp::LogSumExp ? 2 : 1;
  draw(
      context_, program, y, inputs, [&] { set_line_uniforms(program, s); },
      s.loop_steps(4, passes));
}

}  // namespace kiln::gpu_pixel
