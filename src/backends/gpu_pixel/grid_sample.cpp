// GridSample on the GPU-pixel backend: float32 X and grid with 1 to 3 spatial axes, every mode,
// padding and align_corners of its definition (opdefs/grid_sample.h), which also gives the
// output shape. More spatial axes and other dtypes stay on the CPU.
//
// One draw: each output element (n, c, position) resolves each axis's taps (1 for nearest, 2 for
// linear, 4 for cubic: an input index, or -1 for zero padding, and a weight) from its grid
// coordinates and sums their products, following the CPU kernel (ops/grid_sample.cpp) step for
// step, in float. The mode and padding are program variants; sizes are uniforms.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <optional>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "kiln/error.h"
#include "opdefs/grid_sample.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr size_t kMaxSpatialAxes = 3;

// MODE_NEAREST / MODE_LINEAR / MODE_CUBIC, PAD_BORDER / PAD_REFLECTION (zeros otherwise) and
// ALIGN_CORNERS select the variant. GLSL ES 3.00 has no arrays of arrays: axis d's taps are
// entries 4d .. 4d + 3.
constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D grid;
uniform int grid_width;
uniform int u_rank;
uniform int u_channels;
uniform int u_out_plane;
uniform int u_in_plane;
uniform ivec3 u_in_size;

const float kAlpha = -0.75;  // kiln::kGridSampleCubicAlpha

int tap_count[3];
int tap_index[12];
float tap_weight[12];

// Reflects v into [lo, hi], bouncing off the borders as often as needed.
float reflect_into(float v, float lo, float hi) {
  if (v >= lo && v <= hi) return v;
  float range = hi - lo;
  if (!(range > 0.0) || isinf(v) || isnan(v)) return lo;
  float dx = v < lo ? lo - v : v - hi;
  float flips = floor(dx / range);
  float r = dx - flips * range;
  bool even = mod(flips, 2.0) == 0.0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// Where integer tap i of an axis of `size` reads from, or -1 for zero padding.
int resolve(int i, int size, float lo, float hi) {
  if (i >= 0 && i < size) return i;
#if defined(PAD_BORDER)
  return i < 0 ? 0 : size - 1;
#elif defined(PAD_REFLECTION)
  int r = int(reflect_into(float(i), lo, hi));
  return r >= 0 && r < size ? r : -1;
#else
  return -1;
#endif
}

float cubic_near(float v) { return ((kAlpha + 2.0) * v - (kAlpha + 3.0)) * v * v + 1.0; }
float cubic_far(float v) {
  return ((kAlpha * v - 5.0 * kAlpha) * v + 8.0 * kAlpha) * v - 4.0 * kAlpha;
}

void axis_taps(int d, float c) {
  int size = u_in_size[d];
  float n = float(size);
#ifdef ALIGN_CORNERS
  float lo = 0.0;
  float hi = n - 1.0;
  float v = (c + 1.0) / 2.0 * (n - 1.0);
#else
  float lo = -0.5;
  float hi = n - 0.5;
  float v = ((c + 1.0) * n - 1.0) / 2.0;
#endif
#ifdef MODE_NEAREST
  v = roundEven(v);
#endif
  float pos = v;
  if (!(pos >= lo && pos <= hi)) {
#if defined(PAD_BORDER)
    pos = isnan(pos) ? 0.0 : min(max(pos, 0.0), n - 1.0);
#elif defined(PAD_REFLECTION)
    pos = reflect_into(pos, lo, hi);
#endif
  }
  int t = 4 * d;
  if (isinf(pos) || isnan(pos)) {
    tap_count[d] = 1;
    tap_index[t] = -1;
    tap_weight[t] = 0.0;
    return;
  }
  pos = min(max(pos, -8.0), n + 8.0);
#if defined(MODE_NEAREST)
  tap_count[d] = 1;
  tap_index[t] = resolve(int(pos), size, lo, hi);  // truncates, as the CPU does
  tap_weight[t] = 1.0;
#else
  float first = floor(pos);
  float frac = pos - first;
  int base = int(first);
#if defined(MODE_LINEAR)
  tap_count[d] = 2;
  tap_weight[t] = 1.0 - frac;
  tap_weight[t + 1] = frac;
  for (int k = 0; k < 2; ++k) tap_index[t + k] = resolve(base + k, size, lo, hi);
#else
  tap_count[d] = 4;
  tap_weight[t] = cubic_far(frac + 1.0);
  tap_weight[t + 1] = cubic_near(frac);
  tap_weight[t + 2] = cubic_near(1.0 - frac);
  tap_weight[t + 3] = cubic_far(2.0 - frac);
  for (int k = 0; k < 4; ++k) tap_index[t + k] = resolve(base - 1 + k, size, lo, hi);
#endif
#endif
}

float element(int e) {
  int pos = e % u_out_plane;
  int nc = e / u_out_plane;
  int n = nc / u_channels;
  int item = n * u_out_plane + pos;
  for (int d = 0; d < 3; ++d) tap_count[d] = 1;
  // The grid lists coordinates innermost axis first: (x, y[, z]).
  for (int d = 0; d < u_rank; ++d) {
    axis_taps(d, fetch_element(grid, grid_width, item * u_rank + (u_rank - 1 - d)));
  }
  int stride[3];
  int s = 1;
  for (int d = u_rank - 1; d >= 0; --d) {
    stride[d] = s;
    s *= u_in_size[d];
  }
  int plane = nc * u_in_plane;
  float sum = 0.0;
  // Taps in the CPU's order: the last axis fastest.
  for (int a = 0; a < tap_count[0]; ++a) {
    for (int b = 0; b < tap_count[1]; ++b) {
      for (int f = 0; f < tap_count[2]; ++f) {
        int picks[3] = int[3](a, b, f);
        int offset = 0;
        float weight = 1.0;
        bool inside = true;
        for (int d = 0; d < u_rank; ++d) {
          int i = tap_index[4 * d + picks[d]];
          if (i < 0) inside = false;
          offset += i * stride[d];
          weight *= tap_weight[4 * d + picks[d]];
        }
        if (inside) sum += weight * fetch_element(x, x_width, plane + offset);
      }
    }
  }
  return sum;
}
)";

struct GridSampleGeometry {
  Shape x, out;  // X's shape and the output's: [N, C, D...] and [N, C, D_out...]
};

class GridSample {
 public:
  explicit GridSample(Context& context) : context_(context) {}

  void record(const GridSampleAttrs& a, const GridSampleGeometry& g, const TextureTensor& x,
              const TextureTensor& grid, TextureTensor& y) const {
    const std::string where = "GridSample on OpenGL ES";
    const size_t rank = g.x.size() - 2;
    check(rank >= 1 && rank <= kMaxSpatialAxes, where + ": 1 to 3 spatial axes");
    int64_t in_plane = 1, out_plane = 1;
    for (size_t d = 0; d < rank; ++d) {
      in_plane *= g.x[2 + d];
      out_plane *= g.out[2 + d];
    }
    const int64_t planes = g.x[0] * g.x[1];
    expect_element_count(x, planes * in_plane, where, "X");
    expect_element_count(grid, g.x[0] * out_plane * static_cast<int64_t>(rank), where, "grid");
    expect_element_count(y, planes * out_plane, where, "Y");
    if (y.element_count() == 0) return;

    ProgramVariant variant;
    variant.add(a.mode == GridSampleMode::Nearest, "MODE_NEAREST");
    variant.add(a.mode == GridSampleMode::Linear, "MODE_LINEAR");
    variant.add(a.mode == GridSampleMode::Cubic, "MODE_CUBIC");
    variant.add(a.padding == GridSamplePadding::Border, "PAD_BORDER");
    variant.add(a.padding == GridSamplePadding::Reflection, "PAD_REFLECTION");
    variant.add(a.align_corners, "ALIGN_CORNERS");
    const Program& program = context_.programs().get("grid_sample", variant.name, variant.defines,
                                                     std::string(kShader) + kElementMain);
    int in_size[3] = {1, 1, 1};
    for (size_t d = 0; d < rank; ++d) in_size[d] = static_cast<int>(g.x[2 + d]);
    // Per element: the taps of every axis (4 each) and up to 4^rank products.
    int64_t taps = 1;
    for (size_t d = 0; d < rank; ++d) taps *= 4;
    const DrawInput inputs[] = {{"x", &x}, {"grid", &grid}};
    draw(
        context_, program, y, inputs,
        [&] {
          program.set("u_rank", static_cast<int>(rank));
          program.set("u_channels", static_cast<int>(g.x[1]));
          program.set("u_out_plane", static_cast<int>(out_plane));
          program.set("u_in_plane", static_cast<int>(in_plane));
          glUniform3i(program.location("u_in_size"), in_size[0], in_size[1], in_size[2]);
        },
        4 * (taps + 4 * static_cast<int64_t>(rank)));
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The geometry for X and grid, or nullopt with `why` when the kernel does not take them:
// malformed shapes (the CPU kernel reports them), more than 3 spatial axes, empty spatial axes
// or sizes beyond 32-bit indexing.
std::optional<GridSampleGeometry> plan(const Shape& x, const Shape& grid, std::string& why) {
  const std::optional<Shape> out = grid_sample_output_shape(x, grid, why);
  if (!out) return std::nullopt;
  if (x.size() > 2 + kMaxSpatialAxes) {
    why = "more than 3 spatial axes";
    return std::nullopt;
  }
  for (size_t d = 2; d < x.size(); ++d) {
    if (x[d] == 0) {
      why = "an empty spatial axis";
      return std::nullopt;
    }
  }
  if (x.element_count() > kIndexLimit || out->element_count() > kIndexLimit ||
      grid.element_count() > kIndexLimit) {
    why = "sizes beyond 32-bit indexing";
    return std::nullopt;
  }
  return GridSampleGeometry{x, *out};
}

RecordFn grid_sample(GridSampleAttrs attrs) {
  return [attrs](OpRecorder& r) {
    std::string why;
    const std::optional<GridSampleGeometry> g = plan(r.shape(0), r.shape(1), why);
    if (!g) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, why);
    const TextureTensor& x = r.texture(0);
    const TextureTensor& grid = r.texture(1);
    r.kernel<GridSample>().record(attrs, *g, x, grid, r.output(0, g->out));
  };
}

OpFactory grid_sample_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const GridSampleAttrs attrs = parse_grid_sample_attrs(q.info);
    const Shape *x = static_input_shape(q, 0), *grid = static_input_shape(q, 1);
    if (x && grid && !plan(*x, *grid, reason)) return nullptr;
    return grid_sample(attrs);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(grid_sample);
void register_grid_sample_ops(OpTable& t) { t.add("GridSample", grid_sample_factory()); }

}  // namespace kiln::gpu_pixel
