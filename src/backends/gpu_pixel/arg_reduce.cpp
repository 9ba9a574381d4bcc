#include "backends/gpu_pixel/arg_reduce.h"

#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Built with KILN_INT_VALUES: element e is word e & 1 of line e >> 1's int64 index. OP_MAX picks
// the comparison, SELECT_LAST makes ties move the index on (the CPU's `better`).
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;

// By its bits: compilers may fold an ordered comparison with NaN into its negated opposite.
bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }

bool better(float candidate, float best) {
  if (is_nan(candidate) || is_nan(best)) return false;  // every comparison with NaN is false
#if defined(OP_MAX) && defined(SELECT_LAST)
  return candidate >= best;
#elif defined(OP_MAX)
  return candidate > best;
#elif defined(SELECT_LAST)
  return candidate <= best;
#else
  return candidate < best;
#endif
}

int element(int e) {
  if ((e & 1) == 1) return 0;  // the high word of an index below 2^31
  int index = line_start(e >> 1);
  float best = fetch_element(x, x_width, index);
  int arg = 0;
  for (int r = 1; r < u_axis_len; ++r) {
    index += u_inner;
    float v = fetch_element(x, x_width, index);
    if (better(v, best)) {
      best = v;
      arg = r;
    }
  }
  return arg;
}
)";

}  // namespace

void ArgReduce::record(bool max, bool select_last_index, const FoldedShape& s,
                       const TextureTensor& x, TextureTensor& y) const {
  const std::string where = std::string(max ? "ArgMax" : "ArgMin") + " on OpenGL ES";
  check(s.outer >= 0 && s.axis_len >= 0 && s.inner >= 0, where + ": negative size");
  check(s.elements() <= kIndexLimit && 2 * s.lines() <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
  check(!is_integer(x.format()), where + ": the input is not a float texture");
  check(y.format() == TextureFormat::Rgba32I, where + ": the indices need an RGBA32I texture");
  expect_element_count(y, 2 * s.lines(), where, "Y's words");
  if (s.lines() == 0) return;
  check(s.axis_len > 0, where + ": the arg-extremum of an empty axis");
  expect_element_count(x, s.elements(), where, "X");
  ProgramVariant variant = values_variant(TextureFormat::Rgba32I);
  variant.add(max, "OP_MAX");
  variant.add(select_last_index, "SELECT_LAST");
  const Program& program =
      context_.programs().get("arg_reduce", variant.name, variant.defines,
                              std::string(kLineIndexing) + kShader + kElementMain);
  const DrawInput inputs[] = {{"x", &x}};
  // Two lines per fragment (the low words of its four).
  draw(
      context_, program, y, inputs, [&] { set_line_uniforms(program, s); }, s.loop_steps(2, 1));
}

}  // namespace kiln::gpu_pixel
