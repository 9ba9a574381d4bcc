#include "backends/gpu_pixel/conv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu_pixel/banded_draw.h"
#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/fused_activation.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/window_plane.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// Spatial vectors are (height, width). TRANSPOSE selects ConvTranspose (DEPTH: 3-D, its depth
// axis in scalar uniforms), HAS_BIAS the bias,
// HAS_RESIDUAL a residual Z of Y's shape added before the fused activation (fused_activation.h).
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D w;
uniform int w_width;
#ifdef HAS_BIAS
uniform highp sampler2D bias;
uniform int bias_width;
#endif
#ifdef HAS_RESIDUAL
uniform highp sampler2D z;
uniform int z_width;
#endif
uniform ivec2 u_in;      // geometry.in
uniform ivec2 u_out;     // geometry.out
uniform ivec2 u_kernel;
uniform ivec2 u_stride;
uniform ivec2 u_dilation;
uniform ivec2 u_pad;
uniform int u_in_channels;
uniform int u_out_channels;
uniform int u_group_in;   // input channels per group
uniform int u_group_out;  // output channels per group

// ceil(p / d) for d > 0 and any sign of p.
int ceil_div(int p, int d) { return p >= 0 ? (p + d - 1) / d : -((-p) / d); }

// (n, c, y, x) of element e of an NCHW tensor with `channels` channels of (height, width) `size`.
ivec4 nchw_position(int e, int channels, ivec2 size) {
  int x = e % size.y;
  int r = e / size.y;
  int y = r % size.x;
  r /= size.x;
  return ivec4(r / channels, r % channels, y, x);
}

// Output element e of channel oc from its sum: the CPU's order, ((sum + bias) + z), then the
// activation.
float finish(float sum, int oc, int e) {
#ifdef HAS_BIAS
  sum += fetch_element(bias, bias_width, oc);
#endif
#ifdef HAS_RESIDUAL
  sum += fetch_element(z, z_width, e);
#endif
  return activate(sum);
}

#ifndef TRANSPOSE
// Y[n, oc, oy, ox] over Y's spatial dims u_out.
float element(int e) {
  ivec4 at = nchw_position(e, u_out_channels, u_out);
  int n = at.x, oc = at.y, oy = at.z, ox = at.w;
  int g = oc / u_group_out;
  ivec2 origin = ivec2(oy, ox) * u_stride - u_pad;
  // Taps inside the image: origin + k * dilation in [0, u_in).
  ivec2 k_begin = ivec2(max(0, ceil_div(-origin.x, u_dilation.x)),
                        max(0, ceil_div(-origin.y, u_dilation.y)));
  ivec2 k_end = ivec2(min(u_kernel.x, ceil_div(u_in.x - origin.x, u_dilation.x)),
                      min(u_kernel.y, ceil_div(u_in.y - origin.y, u_dilation.y)));
  int plane = u_in.x * u_in.y;
  int x_channel = (n * u_in_channels + g * u_group_in) * plane;
  int w_channel = oc * u_group_in * u_kernel.x * u_kernel.y;
  float sum = 0.0;
  for (int ic = 0; ic < u_group_in; ++ic) {
    for (int ky = k_begin.x; ky < k_end.x; ++ky) {
      int x_row = x_channel + (origin.x + ky * u_dilation.x) * u_in.y + origin.y;
      int w_row = w_channel + ky * u_kernel.y;
      for (int kx = k_begin.y; kx < k_end.y; ++kx) {
        sum += fetch_element(x, x_width, x_row + kx * u_dilation.y) *
               fetch_element(w, w_width, w_row + kx);
      }
    }
    x_channel += plane;
    w_channel += u_kernel.x * u_kernel.y;
  }
  return finish(sum, oc, e);
}
#else
#ifdef DEPTH
// A 3-D ConvTranspose's depth axis (the plane uniforms are its last two axes).
uniform int u_in_d;
uniform int u_out_d;
uniform int u_kernel_d;
uniform int u_stride_d;
uniform int u_dilation_d;
uniform int u_pad_d;
#endif

// Y[n, oc, (od,) oy, ox] over the image (u_in_d,) u_in: the sum over windows p (in (u_out_d,)
// u_out) and taps k with p * stride - pad + k * dilation == ((od,) oy, ox).
float element(int e) {
#ifdef DEPTH
  // Depth and channel fold into one "channel" index of the plane.
  ivec4 at = nchw_position(e, u_out_channels * u_in_d, u_in);
  int n = at.x, oc = at.y / u_in_d, od = at.y % u_in_d, oy = at.z, ox = at.w;
  int depth_out = u_out_d, kernel_d = u_kernel_d;
#else
  ivec4 at = nchw_position(e, u_out_channels, u_in);
  int n = at.x, oc = at.y, oy = at.z, ox = at.w;
  int depth_out = 1, kernel_d = 1;
#endif
  int g = oc / u_group_out;
  int plane = u_out.x * u_out.y;
  int plane_taps = u_kernel.x * u_kernel.y;
  float sum = 0.0;
  for (int ic = 0; ic < u_group_in; ++ic) {
    int c = g * u_group_in + ic;
    int x_volume = (n * u_in_channels + c) * depth_out;
    int w_volume = (c * u_group_out + oc - g * u_group_out) * kernel_d * plane_taps;
    for (int kd = 0; kd < kernel_d; ++kd) {
#ifdef DEPTH
      int td = od + u_pad_d - kd * u_dilation_d;
      if (td < 0 || td % u_stride_d != 0) continue;
      int pd = td / u_stride_d;
      if (pd >= u_out_d) continue;
#else
      int pd = 0;
#endif
      int x_channel = (x_volume + pd) * plane;
      int w_channel = w_volume + kd * plane_taps;
      for (int ky = 0; ky < u_kernel.x; ++ky) {
        int ty = oy + u_pad.x - ky * u_dilation.x;
        if (ty < 0 || ty % u_stride.x != 0) continue;
        int py = ty / u_stride.x;
        if (py >= u_out.x) continue;
        for (int kx = 0; kx < u_kernel.y; ++kx) {
          int tx = ox + u_pad.y - kx * u_dilation.y;
          if (tx < 0 || tx % u_stride.y != 0) continue;
          int px = tx / u_stride.y;
          if (px >= u_out.y) continue;
          sum += fetch_element(x, x_width, x_channel + py * u_out.y + px) *
                 fetch_element(w, w_width, w_channel + ky * u_kernel.y + kx);
        }
      }
    }
  }
  return finish(sum, oc, e);
}
#endif
)";

// The first axis of a 3-D geometry, checked as to_window_plane checks the plane's.
struct DepthAxis {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, pad = 0;
};

DepthAxis depth_axis(const WindowGeometry& g, const std::string& where) {
  check(g.out.size() == 3 && g.kernel.size() == 3 && g.stride.size() == 3 &&
            g.dilation.size() == 3 && g.pad.size() == 3,
        where + ": geometry fields of different ranks");
  const DepthAxis d{g.in[0], g.out[0], g.kernel[0], g.stride[0], g.dilation[0], g.pad[0]};
  check(d.stride > 0 && d.dilation > 0, where + ": strides and dilations must be > 0");
  check(d.in >= 0 && d.out >= 0 && d.kernel > 0, where + ": negative spatial size or empty kernel");
  return d;
}

// The last two axes of a 3-D geometry.
WindowGeometry plane_of(const WindowGeometry& g) {
  auto last_two = [](const Shape& s) { return Shape{s[1], s[2]}; };
  return {last_two(g.in),     last_two(g.out),      last_two(g.kernel),
          last_two(g.stride), last_two(g.dilation), last_two(g.pad)};
}

}  // namespace

void Conv::record(const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
                  const TextureTensor* bias, TextureTensor& y,
                  const TextureTensor* residual) const {
  run(false, p, x, w, bias, residual, y);
}

void Conv::record_transpose(const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
                            const TextureTensor* bias, TextureTensor& y) const {
  run(true, p, x, w, bias, nullptr, y);
}

void Conv::run(bool transpose, const ConvParams& p, const TextureTensor& x, const TextureTensor& w,
               const TextureTensor* bias, const TextureTensor* residual, TextureTensor& y) const {
  const std::string where = std::string(transpose ? "ConvTranspose" : "Conv") + " on OpenGL ES";
  // A 3-D ConvTranspose walks its first axis in the shader's depth loop, its last two as the
  // plane; every other geometry is the plane itself.
  const bool has_depth = transpose && p.geometry.rank() == 3;
  const DepthAxis depth = has_depth ? depth_axis(p.geometry, where) : DepthAxis{};
  const WindowPlane g = to_window_plane(has_depth ? plane_of(p.geometry) : p.geometry, where);
  check(p.group > 0 && p.in_channels % p.group == 0 && p.out_channels % p.group == 0,
        where + ": " + std::to_string(p.in_channels) + " input and " +
            std::to_string(p.out_channels) + " output channels are not divisible by group " +
            std::to_string(p.group));
  check(p.batch >= 0, where + ": negative batch");
  const int64_t x_plane = transpose ? depth.out * g.out[0] * g.out[1] : g.in[0] * g.in[1];
  const int64_t y_plane = transpose ? depth.in * g.in[0] * g.in[1] : g.out[0] * g.out[1];
  const int64_t group_in = p.in_channels / p.group, group_out = p.out_channels / p.group;
  const int64_t taps = depth.kernel * g.kernel[0] * g.kernel[1];
  const int64_t x_count = p.batch * p.in_channels * x_plane;
  const int64_t y_count = p.batch * p.out_channels * y_plane;
  const int64_t w_count =
      transpose ? p.in_channels * group_out * taps : p.out_channels * group_in * taps;
  expect_element_count(y, y_count, where, "Y");
  if (y_count == 0) return;
  check(std::max({x_count, y_count, w_count}) <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
  expect_element_count(w, w_count, where, "W");
  if (bias) expect_element_count(*bias, p.out_channels, where, "B");
  if (residual) expect_element_count(*residual, y_count, where, "Z");
  // With no input elements (zero input channels) the loops read nothing, and the possibly empty
  // X and W stay unbound (draw() refuses empty textures).
  const bool reads = x_count > 0 && w_count > 0;
  if (reads) expect_element_count(x, x_count, where, "X");

  ProgramVariant variant;
  variant.add(transpose, "TRANSPOSE");
  variant.add(bias != nullptr, "HAS_BIAS");
  variant.add(residual != nullptr, "HAS_RESIDUAL");
  variant.add(has_depth, "DEPTH");
  add_activation(variant, p.activation);
  const Program& program =
      context_.programs().get("conv", variant.name, variant.defines,
                              std::string(kFusedActivation) + kShader + kElementMain);
  std::vector<DrawInput> inputs;
  if (reads) inputs = {{"x", &x}, {"w", &w}};
  if (bias) inputs.push_back({"bias", bias});
  if (residual) inputs.push_back({"z", residual});
  auto i = [](int64_t v) { return static_cast<int>(v); };
  const auto set_uniforms = [&] {
    set_window_uniforms(program, g);
    program.set("u_in_channels", i(p.in_channels));
    program.set("u_out_channels", i(p.out_channels));
    program.set("u_group_in", i(group_in));
    program.set("u_group_out", i(group_out));
    set_activation_uniforms(program, p.clip_min, p.clip_max);
    if (has_depth) {
      program.set("u_in_d", i(depth.in));
      program.set("u_out_d", i(depth.out));
      program.set("u_kernel_d", i(depth.kernel));
      program.set("u_stride_d", i(depth.stride));
      program.set("u_dilation_d", i(depth.dilation));
      program.set("u_pad_d", i(depth.pad));
    }
  };

  // Four outputs per fragment, each over its group's channels and taps.
  draw_in_bands(context_, program, y, inputs,
                4 * group_in * depth.kernel * (1 + window_loop_steps(g)), set_uniforms);
}

}  // namespace kiln::gpu_pixel
