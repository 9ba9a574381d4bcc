#include "backends/gpu_pixel/pool.h"

#include <algorithm>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/window_plane.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Spatial vectors are (height, width). OP_MAX, OP_AVERAGE (COUNT_PAD: count_include_pad) or
// OP_LP select the op.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform ivec2 u_in;
uniform ivec2 u_out;
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_dilation;
uniform ivec2 u_pad;
uniform ivec2 u_pad_end;
uniform float u_p;

int ceil_div(int p, int d) { return p >= 0 ? (p + d - 1) / d : -((-p) / d); }

float element(int e) {
  int out_plane = u_out.x * u_out.y;
  int plane = e / out_plane;
  int r = e - plane * out_plane;
  ivec2 o = ivec2(r / u_out.y, r % u_out.y);
  ivec2 base = o * u_stride - u_pad;
  // Taps inside the image: base + k * dilation in [0, u_in).
  ivec2 lo = ivec2(max(0, ceil_div(-base.x, u_dilation.x)), max(0, ceil_div(-base.y, u_dilation.y)));
  ivec2 hi = ivec2(min(u_kernel.x, ceil_div(u_in.x - base.x, u_dilation.x)),
                   min(u_kernel.y, ceil_div(u_in.y - base.y, u_dilation.y)));
  int x_plane = plane * u_in.x * u_in.y;
#ifdef OP_MAX
  float best = -inf_value();
  bool any = false;
#else
  float sum = 0.0;
#endif
  for (int ky = lo.x; ky < hi.x; ++ky) {
    int row = x_plane + (base.x + ky * u_dilation.x) * u_in.y + base.y;
    for (int kx = lo.y; kx < hi.y; ++kx) {
      float v = fetch_element(x, x_width, row + kx * u_dilation.y);
#if defined(OP_MAX)
      if (!any || v > best) best = v;  // the first tap seeds it, as on the CPU (NaN there stays)
      any = true;
#elif defined(OP_AVERAGE)
      sum += v;
#else
      float a = abs(v);
      sum += u_p == 2.0 ? a * a : (u_p == 1.0 ? a : (a == 0.0 ? 0.0 : pow(a, u_p)));
#endif
    }
  }
#if defined(OP_MAX)
  return best;
#elif defined(OP_AVERAGE)
#ifdef COUNT_PAD
  // Taps inside the padded image [-pad, in + pad_end): a ceil_mode window may reach past it.
  ivec2 limit = u_in + u_pad_end - 1 - base;
  ivec2 taps = ivec2(limit.x < 0 ? 0 : min(limit.x / u_dilation.x + 1, u_kernel.x),
                     limit.y < 0 ? 0 : min(limit.y / u_dilation.y + 1, u_kernel.y));
#else
  ivec2 taps = max(hi - lo, ivec2(0));
#endif
  int count = taps.x * taps.y;
  return count > 0 ? sum / float(count) : 0.0;
#else
  return u_p == 2.0 ? sqrt(sum) : (u_p == 1.0 ? sum : (sum == 0.0 ? 0.0 : pow(sum, 1.0 / u_p)));
#endif
}
)";

const char* name_of(PoolOp op) {
  switch (op) {
    case PoolOp::Max:
      return "MaxPool";
    case PoolOp::Average:
      return "AveragePool";
    case PoolOp::Lp:
      return "LpPool";
  }
  throw Error("pool on OpenGL ES: unknown op code");
}

}  // namespace

void Pool::record(const PoolParams& params, const TextureTensor& x, TextureTensor& y) const {
  const std::string where = std::string(name_of(params.op)) + " on OpenGL ES";
  const WindowGeometry& g = params.shape.geometry;
  const WindowPlane plane = to_window_plane(g, where);
  check(params.shape.pad_end.size() == g.rank(), where + ": geometry fields of different ranks");
  check(params.op != PoolOp::Lp || params.p > 0.0f, where + ": p must be > 0");
  for (size_t d = 0; d < 2; ++d) {
    const int64_t window = plane.kernel[d] * plane.dilation[d];
    check(std::max({plane.in[d], plane.out[d], window}) <= kIndexLimit, where + ": too large");
  }
  const int64_t x_count = params.shape.planes * g.in_size();
  const int64_t y_count = params.shape.planes * g.out_size();
  expect_element_count(y, y_count, where, "Y");
  if (y_count == 0) return;
  expect_element_count(x, x_count, where, "X");
  check(std::max(x_count, y_count) <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");

  ProgramVariant variant;
  variant.add(params.op == PoolOp::Max, "OP_MAX");
  variant.add(params.op == PoolOp::Average, "OP_AVERAGE");
  variant.add(params.op == PoolOp::Lp, "OP_LP");
  variant.add(params.op == PoolOp::Average && params.count_include_pad, "COUNT_PAD");
  const Program& program = context_.programs().get("pool", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &x}};
  draw(
      context_, program, y, inputs,
      [&] {
        set_window_uniforms(program, plane);
        set_ivec2(program, "u_pad_end", as_plane(params.shape.pad_end, 0));
        program.set("u_p", params.p);
      },
      4 * window_loop_steps(plane));
}

void Pool::record_global(PoolOp op, int64_t planes, int64_t plane_size, const TextureTensor& x,
                         TextureTensor& y, float p) const {
  check(planes >= 0 && plane_size >= 0,
        std::string("Global") + name_of(op) + " on OpenGL ES: negative size");
  // One window covering the whole plane, as a 1-D pool.
  PoolParams params;
  params.op = op;
  params.p = p;
  params.shape.planes = planes;
  params.shape.geometry = {{plane_size}, {1}, {std::max<int64_t>(plane_size, 1)}, {1}, {1}, {0}};
  params.shape.pad_end = {0};
  record(params, x, y);
}

}  // namespace kiln::gpu_pixel
