#include "backends/gpu_pixel/pool.h"

#include <algorithm>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Spatial vectors are (depth, height, width): 1-D and 2-D windows run as 3-D ones whose leading
// axes have size 1. OP_MAX, OP_AVERAGE (COUNT_PAD: count_include_pad) or OP_LP select the op.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform ivec3 u_in;
uniform ivec3 u_out;
uniform ivec3 u_kernel;
uniform ivec3 u_stride;
uniform ivec3 u_dilation;
uniform ivec3 u_pad;
uniform ivec3 u_pad_end;
uniform float u_p;

int ceil_div(int p, int d) { return p >= 0 ? (p + d - 1) / d : -((-p) / d); }
ivec3 ceil_div3(ivec3 p, ivec3 d) {
  return ivec3(ceil_div(p.x, d.x), ceil_div(p.y, d.y), ceil_div(p.z, d.z));
}

float element(int e) {
  int out_volume = u_out.x * u_out.y * u_out.z;
  int plane = e / out_volume;
  int r = e - plane * out_volume;
  ivec3 o = ivec3(r / (u_out.y * u_out.z), (r / u_out.z) % u_out.y, r % u_out.z);
  ivec3 base = o * u_stride - u_pad;
  // Taps inside the image: base + k * dilation in [0, u_in).
  ivec3 lo = max(ivec3(0), ceil_div3(-base, u_dilation));
  ivec3 hi = min(u_kernel, ceil_div3(u_in - base, u_dilation));
  int x_plane = plane * u_in.x * u_in.y * u_in.z;
#ifdef OP_MAX
  float best = -inf_value();
  bool any = false;
#else
  float sum = 0.0;
#endif
  for (int kz = lo.x; kz < hi.x; ++kz) {
    int slab = x_plane + (base.x + kz * u_dilation.x) * u_in.y * u_in.z;
    for (int ky = lo.y; ky < hi.y; ++ky) {
      int row = slab + (base.y + ky * u_dilation.y) * u_in.z + base.z;
      for (int kx = lo.z; kx < hi.z; ++kx) {
        float v = fetch_element(x, x_width, row + kx * u_dilation.z);
#if defined(OP_MAX)
        if (!any || v > best) best = v;  // the first tap seeds it, as on the CPU
        any = true;
#elif defined(OP_AVERAGE)
        sum += v;
#else
        float a = abs(v);
        sum += u_p == 2.0 ? a * a : (u_p == 1.0 ? a : (a == 0.0 ? 0.0 : pow(a, u_p)));
#endif
      }
    }
  }
#if defined(OP_MAX)
  return best;
#elif defined(OP_AVERAGE)
#ifdef COUNT_PAD
  // Taps inside the padded image [-pad, in + pad_end): a ceil_mode window may reach past it.
  ivec3 limit = u_in + u_pad_end - 1 - base;
  ivec3 taps = ivec3(limit.x < 0 ? 0 : min(limit.x / u_dilation.x + 1, u_kernel.x),
                     limit.y < 0 ? 0 : min(limit.y / u_dilation.y + 1, u_kernel.y),
                     limit.z < 0 ? 0 : min(limit.z / u_dilation.z + 1, u_kernel.z));
#else
  ivec3 taps = max(hi - lo, ivec3(0));
#endif
  int count = taps.x * taps.y * taps.z;
  return count > 0 ? sum / float(count) : 0.0;
#else
  return u_p == 2.0 ? sqrt(sum) : (u_p == 1.0 ? sum : (sum == 0.0 ? 0.0 : pow(sum, 1.0 / u_p)));
#endif
}
)";

void set_ivec3(const Program& program, const char* uniform, const Shape& v) {
  glUniform3i(program.location(uniform), static_cast<GLint>(v[0]), static_cast<GLint>(v[1]),
              static_cast<GLint>(v[2]));
}

// `per_axis` of rank 1 to 3 as three entries, `fill` before it.
Shape as_volume(const Shape& per_axis, int64_t fill) {
  Shape v;
  for (size_t d = per_axis.size(); d < 3; ++d) v.push_back(fill);
  for (int64_t d : per_axis) v.push_back(d);
  return v;
}

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
  const size_t rank = g.rank();
  check(rank >= 1 && rank <= 3,
        where + ": only 1-D to 3-D geometries, got rank " + std::to_string(rank));
  check(g.out.size() == rank && g.kernel.size() == rank && g.stride.size() == rank &&
            g.dilation.size() == rank && g.pad.size() == rank &&
            params.shape.pad_end.size() == rank,
        where + ": geometry fields of different ranks");
  for (size_t d = 0; d < rank; ++d) {
    check(g.kernel[d] > 0 && g.stride[d] > 0 && g.dilation[d] > 0,
          where + ": kernel sizes, strides and dilations must be positive");
    check(g.in[d] >= 0 && g.out[d] >= 0, where + ": negative spatial size");
  }
  check(g.coordinates_fit_int32(params.shape.pad_end), where + ": beyond 32-bit indexing");
  check(params.op != PoolOp::Lp || params.p > 0.0f, where + ": p must be > 0");
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
  const Shape kernel = as_volume(g.kernel, 1);
  // Depth, then rows of each slab, then the columns of each row.
  const int64_t steps = kernel[0] * (1 + kernel[1] * (1 + kernel[2]));
  draw(
      context_, program, y, inputs,
      [&] {
        set_ivec3(program, "u_in", as_volume(g.in, 1));
        set_ivec3(program, "u_out", as_volume(g.out, 1));
        set_ivec3(program, "u_kernel", kernel);
        set_ivec3(program, "u_stride", as_volume(g.stride, 1));
        set_ivec3(program, "u_dilation", as_volume(g.dilation, 1));
        set_ivec3(program, "u_pad", as_volume(g.pad, 0));
        set_ivec3(program, "u_pad_end", as_volume(params.shape.pad_end, 0));
        program.set("u_p", params.p);
      },
      4 * steps);
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
