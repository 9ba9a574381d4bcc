#include "backends/gpu_pixel/resize.h"

#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

// The taps texture holds (input index, weight) pairs, u_max_taps per output coordinate: the
// rows' coordinates first, then the columns' from pair u_col_taps_at on. Unused pairs have
// weight 0; an index of -1 in a coordinate's first pair puts it outside tf_crop_and_resize's
// region.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D taps;
uniform int taps_width;
uniform ivec2 u_in;   // (height, width)
uniform ivec2 u_out;
uniform ivec2 u_max_taps;
uniform int u_col_taps_at;
uniform float u_extrapolation;

vec2 tap(int pair) {
  vec4 t = fetch_texel(taps, taps_width, pair >> 1);
  return (pair & 1) == 0 ? t.xy : t.zw;
}

float element(int e) {
  int out_plane = u_out.x * u_out.y;
  int plane = e / out_plane;
  int r = e - plane * out_plane;
  int oy = r / u_out.y;
  int ox = r - oy * u_out.y;
  int row_pairs = oy * u_max_taps.x;
  int col_pairs = u_col_taps_at + ox * u_max_taps.y;
  if (tap(row_pairs).x < 0.0 || tap(col_pairs).x < 0.0) return u_extrapolation;
  int x_plane = plane * u_in.x * u_in.y;
  float sum = 0.0;
  for (int i = 0; i < u_max_taps.x; ++i) {
    vec2 ty = tap(row_pairs + i);
    int row = x_plane + int(ty.x) * u_in.y;
    float part = 0.0;
    for (int j = 0; j < u_max_taps.y; ++j) {
      vec2 tx = tap(col_pairs + j);
      part += tx.y * fetch_element(x, x_width, row + int(tx.x));
    }
    sum += ty.y * part;
  }
  return sum;
}
)";

// Appends `taps` as (index, weight) pairs, max_count per coordinate.
void append_pairs(const AxisTaps& taps, int64_t coordinates, std::vector<float>& pairs) {
  for (int64_t o = 0; o < coordinates; ++o) {
    const int64_t first = taps.first[o], count = taps.first[o + 1] - first;
    for (int64_t t = 0; t < taps.max_count; ++t) {
      const bool used = t < count;
      pairs.push_back(used ? static_cast<float>(taps.index[first + t]) : 0.0f);
      pairs.push_back(used ? taps.weight[first + t] : 0.0f);
    }
  }
}

}  // namespace

void Resize::record(std::span<const ResizeAxis> axes, const ResizeOptions& options,
                    const TextureTensor& x, TextureTensor& y) const {
  const std::string where = "Resize on OpenGL ES";
  check(!axes.empty(), where + ": a scalar has nothing to resize");
  int64_t x_count = 1, y_count = 1;
  for (const ResizeAxis& a : axes) {
    check(a.in >= 0 && a.out >= 0, where + ": negative size");
    x_count *= a.in;
    y_count *= a.out;
  }
  check(x.element_count() == x_count && y.element_count() == y_count,
        where + ": X and Y hold " + std::to_string(x.element_count()) + " and " +
            std::to_string(y.element_count()) + " elements, the axes give " +
            std::to_string(x_count) + " and " + std::to_string(y_count));
  if (y_count == 0) return;
  check(x_count > 0, where + ": an empty input cannot fill a non-empty output");
  check(std::max(x_count, y_count) <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");

  // Leading axes must map every coordinate to itself with weight 1.
  const size_t rank = axes.size();
  const size_t first_resized = rank >= 2 ? rank - 2 : 0;
  for (size_t d = 0; d < first_resized; ++d) {
    AxisTaps t;
    compute_axis_taps(axes[d], options, t);
    bool identity = axes[d].in == axes[d].out;
    for (int64_t o = 0; identity && o < axes[d].out; ++o) {
      const int64_t f = t.first[o];
      identity = t.first[o + 1] - f == 1 && t.index[f] == o && t.weight[f] == 1.0f;
    }
    check(identity, where + ": only the last two axes may be resized, axis " + std::to_string(d) +
                        " changes");
  }
  // (height, width): a 1-D resize as height 1, with an identity row tap.
  AxisTaps rows, cols;
  ResizeAxis row_axis;
  if (rank >= 2) row_axis = axes[rank - 2];
  compute_axis_taps(row_axis, options, rows);
  compute_axis_taps(axes[rank - 1], options, cols);
  std::vector<float> pairs;
  append_pairs(rows, row_axis.out, pairs);
  const int64_t col_taps_at = static_cast<int64_t>(pairs.size() / 2);
  append_pairs(cols, axes[rank - 1].out, pairs);
  check(static_cast<int64_t>(pairs.size()) <= kIndexLimit, where + ": too many filter taps");
  TextureTensor taps(context_, static_cast<int64_t>(pairs.size()));
  upload(taps, pairs);

  const Program& program =
      context_.programs().get("resize", "", "", std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &x}, {"taps", &taps}};
  auto i = [](int64_t v) { return static_cast<int>(v); };
  const int in[] = {i(row_axis.in), i(axes[rank - 1].in)};
  const int out[] = {i(row_axis.out), i(axes[rank - 1].out)};
  const int max_taps[] = {i(rows.max_count), i(cols.max_count)};
  // Four outputs per fragment, each over its rows of taps and the column taps of each row.
  draw(
      context_, program, y, inputs,
      [&] {
        glUniform2iv(program.location("u_in"), 1, in);
        glUniform2iv(program.location("u_out"), 1, out);
        glUniform2iv(program.location("u_max_taps"), 1, max_taps);
        program.set("u_col_taps_at", i(col_taps_at));
        program.set("u_extrapolation", options.extrapolation_value);
      },
      4 * rows.max_count * (1 + cols.max_count));
}

}  // namespace kiln::gpu_pixel
