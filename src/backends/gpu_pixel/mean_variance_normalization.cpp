// MeanVarianceNormalization on the GPU-pixel backend: float32 X, any set of axes its definition
// (opdefs/local_norm.h) accepts. Other dtypes stay on the CPU.
//
// Two draws. The stats draw gives each group (an index of the axes kept) the (scale, shift) of
// y = x * scale + shift: the mean and the sum of squared deviations to about twice float's
// precision (wide_float.h; the CPU kernel sums in float blocks and double), scale =
// 1 / (sqrt(variance) + kMvnEpsilon) and shift = -mean * scale rounded once each. The apply draw
// maps each element to its group and rounds x * scale + shift once, as the CPU's vectorised
// multiply-add does.
//
// The family in one file: the kernel and, at the end, the adapter that places ONNX nodes on it.
#include <algorithm>
#include <array>
#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/operand_checks.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/wide_float.h"
#include "opdefs/local_norm.h"

namespace kiln::gpu_pixel {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr int kMaxRank = static_cast<int>(kMvnMaxRank);

// The group's elements are its base (from the kept axes' indices) plus the offsets of the
// reduced axes' indices, both row-major.
constexpr const char* kStatsShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_kept_rank;
uniform int u_kept_size[14];
uniform int u_kept_stride[14];
uniform int u_red_rank;
uniform int u_red_size[14];
uniform int u_red_stride[14];
uniform int u_count;
uniform float u_epsilon;  // kMvnEpsilon, added to the standard deviation

int group_base(int g) {
  int base = 0;
  for (int d = u_kept_rank - 1; d >= 0; --d) {
    base += (g % u_kept_size[d]) * u_kept_stride[d];
    g /= u_kept_size[d];
  }
  return base;
}

int reduced_offset(int i) {
  int offset = 0;
  for (int d = u_red_rank - 1; d >= 0; --d) {
    offset += (i % u_red_size[d]) * u_red_stride[d];
    i /= u_red_size[d];
  }
  return offset;
}

vec2 line_stats(int g) {
  int base = group_base(g);
  float count = float(u_count);
  Wide sum = Wide(0.0, 0.0);
  for (int i = 0; i < u_count; ++i) {
    sum = wide_add(sum, Wide(fetch_element(x, x_width, base + reduced_offset(i)), 0.0), false);
  }
  // mean = mean_hi + mean_lo: the quotient, then the quotient of what it leaves.
  float mean_hi = wide_value(sum) / count;
  float mean_lo = wide_value(wide_add(sum, wide_mul(mean_hi, count), true)) / count;
  Wide squares = Wide(0.0, 0.0);
  for (int i = 0; i < u_count; ++i) {
    float d = (fetch_element(x, x_width, base + reduced_offset(i)) - mean_hi) - mean_lo;
    squares = wide_add(squares, wide_mul(d, d), false);
  }
  // The variance, its square root (a Newton step from float's), that plus the epsilon, and its
  // reciprocal (a Newton step likewise), each to about twice float's precision.
  float var_hi = wide_value(squares) / count;
  float var_lo = wide_value(wide_add(squares, wide_mul(var_hi, count), true)) / count;
  float s = sqrt(var_hi);
  float s_lo = 0.0;
  if (s > 0.0) {
    s_lo = wide_value(wide_add(Wide(var_hi, var_lo), wide_mul(s, s), true)) / (2.0 * s);
  }
  Wide d = wide_add(Wide(s, s_lo), Wide(u_epsilon, 0.0), false);
  float k_hi = 1.0 / wide_value(d);
  Wide dk = wide_mul(d.hi, k_hi);
  dk.lo += d.lo * k_hi;
  float k_lo = wide_value(wide_add(Wide(1.0, 0.0), dk, true)) * k_hi;
  // shift = -mean * scale, from the wide mean and scale.
  Wide shift = wide_mul(mean_hi, k_hi);
  shift.lo += mean_hi * k_lo + mean_lo * k_hi;
  return vec2(k_hi + k_lo, -wide_value(shift));
}
)";

constexpr const char* kApplyShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform highp sampler2D stats;
uniform int stats_width;
uniform int u_rank;
uniform int u_size[14];
uniform int u_group_stride[14];  // 0 for a reduced axis

float element(int e) {
  int g = 0;
  int rest = e;
  for (int d = u_rank - 1; d >= 0; --d) {
    g += (rest % u_size[d]) * u_group_stride[d];
    rest /= u_size[d];
  }
  // x * scale + shift rounded once, as the CPU's fused multiply-add gives it: a mean far from
  // zero makes the two terms cancel.
  Wide product = wide_mul(fetch_element(x, x_width, e), fetch_element(stats, stats_width, 2 * g));
  return wide_value(wide_add(product, Wide(fetch_element(stats, stats_width, 2 * g + 1), 0.0),
                             false));
}
)";

// The axes as the draws see them: kept and reduced ones apart, with their strides in X.
struct MvnGeometry {
  int rank = 0, kept_rank = 0, red_rank = 0;
  std::array<int, kMaxRank> size{}, group_stride{};
  std::array<int, kMaxRank> kept_size{}, kept_stride{}, red_size{}, red_stride{};
  int64_t groups = 1, count = 1;
};

MvnGeometry geometry(const Shape& shape, uint32_t reduced) {
  MvnGeometry g;
  g.rank = static_cast<int>(shape.size());
  int64_t stride = 1;
  std::array<int, kMaxRank> strides{};
  for (int d = g.rank - 1; d >= 0; --d) {
    g.size[d] = static_cast<int>(shape[d]);
    strides[d] = static_cast<int>(stride);
    stride *= shape[d];
  }
  for (int d = 0; d < g.rank; ++d) {
    if ((reduced >> d) & 1u) {
      g.red_size[g.red_rank] = g.size[d];
      g.red_stride[g.red_rank++] = strides[d];
      g.count *= shape[d];
    } else {
      g.kept_size[g.kept_rank] = g.size[d];
      g.kept_stride[g.kept_rank++] = strides[d];
      g.groups *= shape[d];
    }
  }
  int64_t group_stride = 1;
  for (int d = g.rank - 1; d >= 0; --d) {
    if ((reduced >> d) & 1u) continue;
    g.group_stride[d] = static_cast<int>(group_stride);
    group_stride *= shape[d];
  }
  return g;
}

class Mvn {
 public:
  explicit Mvn(Context& context) : context_(context) {}

  void record(const MvnGeometry& g, TextureTensor& stats, const TextureTensor& x,
              TextureTensor& y) const {
    const Program& stats_program = context_.programs().get(
        "mvn_stats", "", "", std::string(kWideFloatGlsl) + kStatsShader + kLineStatsMain);
    const DrawInput stats_inputs[] = {{"x", &x}};
    // Two groups per fragment, each walked twice, with the index loop per element.
    draw(
        context_, stats_program, stats, stats_inputs,
        [&] {
          set_wide_float_uniforms(stats_program);
          stats_program.set("u_kept_rank", g.kept_rank);
          stats_program.set("u_kept_size", g.kept_size);
          stats_program.set("u_kept_stride", g.kept_stride);
          stats_program.set("u_red_rank", g.red_rank);
          stats_program.set("u_red_size", g.red_size);
          stats_program.set("u_red_stride", g.red_stride);
          stats_program.set("u_count", static_cast<int>(g.count));
          stats_program.set("u_epsilon", static_cast<float>(kMvnEpsilon));
        },
        2 * (g.kept_rank + 2 * g.count * (1 + g.red_rank)));

    const Program& program = context_.programs().get(
        "mvn_apply", "", "", std::string(kWideFloatGlsl) + kApplyShader + kElementMain);
    const DrawInput inputs[] = {{"x", &x}, {"stats", &stats}};
    draw(
        context_, program, y, inputs,
        [&] {
          set_wide_float_uniforms(program);
          program.set("u_rank", g.rank);
          program.set("u_size", g.size);
          program.set("u_group_stride", g.group_stride);
        },
        4 * g.rank);
  }

 private:
  Context& context_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn mvn(const NodeInfo& info) {
  return [node = &info.node(), axes = parse_mvn_axes(info)](OpRecorder& r) {
    const Shape& shape = r.shape(0);
    const uint32_t reduced = resolve_mvn_axes(*node, axes, static_cast<int64_t>(shape.size()));
    if (shape.element_count() > kIndexLimit)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    TextureTensor& y = r.output(0, shape);
    if (shape.element_count() == 0) return;
    const MvnGeometry g = geometry(shape, reduced);
    TextureTensor stats = r.temporary(2 * g.groups);
    r.kernel<Mvn>().record(g, stats, r.texture(0), y);
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(mean_variance_normalization);
void register_mean_variance_normalization_ops(OpTable& t) {
  t.add("MeanVarianceNormalization",
        [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
          if (!float_inputs(q, reason)) return nullptr;
          return mvn(q.info);
        });
}

}  // namespace kiln::gpu_pixel
