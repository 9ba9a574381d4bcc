// GridSample (opsets 16, 20, 22): reads X at the normalised positions a grid lists, in any
// number of spatial dimensions, with nearest, linear or cubic interpolation and zeros, border or
// reflection padding.
//
// Every output position resolves its taps (input offsets and weights) once and reuses them for
// all channels. Interpolation is separable, so a position's taps are the products of per-axis
// taps: 1 per axis for nearest, 2 for linear, 4 for cubic.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/grid_sample.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

using Mode = GridSampleMode;
using Padding = GridSamplePadding;

// Cubic reads 4^rank taps per output; six spatial axes (4096 taps) is far beyond real models.
constexpr int64_t kMaxSpatialRank = 6;
constexpr double kCubicAlpha = kGridSampleCubicAlpha;

// Reflects x into [lo, hi], bouncing off the borders as often as needed.
double reflect(double x, double lo, double hi) {
  if (x >= lo && x <= hi) return x;
  const double range = hi - lo;
  if (!(range > 0) || !std::isfinite(x)) return lo;
  const double dx = x < lo ? lo - x : x - hi;
  const double flips = std::floor(dx / range);
  const double r = dx - flips * range;
  const bool even = std::fmod(flips, 2.0) == 0.0;
  if (x < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// The taps of one axis for one output position: input indices (-1: reads zero padding) and
// their weights.
struct AxisTaps {
  int count = 0;
  int64_t index[4] = {};
  double weight[4] = {};
};

void cubic_weights(double t, double* w) {
  const double a = kCubicAlpha;
  auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

class AxisSampler {
 public:
  AxisSampler(const GridSampleAttrs& a, int64_t size)
      : a_(a),
        size_(size),
        lo_(a.align_corners ? 0.0 : -0.5),
        hi_(a.align_corners ? static_cast<double>(size) - 1 : static_cast<double>(size) - 0.5) {}

  // `c` is the normalised coordinate, in the grid's own precision C (the positions it rounds
  // to match the reference's that way).
  template <class C>
  AxisTaps taps(C c) const {
    const C n = static_cast<C>(size_);
    C x = a_.align_corners ? (c + C(1)) / C(2) * (n - C(1)) : ((c + C(1)) * n - C(1)) / C(2);
    // Halves round to even (the reference data does so for 3-D too, unlike PyTorch's round).
    if (a_.mode == Mode::Nearest) x = std::nearbyint(x);
    double pos = static_cast<double>(x);
    if (!(pos >= lo_ && pos <= hi_)) {  // also NaN
      if (a_.padding == Padding::Border) {
        pos =
            std::isnan(pos) ? 0.0 : std::fmin(std::fmax(pos, 0.0), static_cast<double>(size_ - 1));
      } else if (a_.padding == Padding::Reflection) {
        pos = reflect(pos, lo_, hi_);
      }
    }
    AxisTaps t;
    // Beyond a few pixels outside, every tap reads zero padding; clamping there keeps the
    // integer conversions below in range.
    if (!std::isfinite(pos) || size_ == 0) {
      t.count = 1;
      t.index[0] = -1;
      t.weight[0] = 0;
      return t;
    }
    pos = std::fmin(std::fmax(pos, -8.0), static_cast<double>(size_) + 8.0);
    if (a_.mode == Mode::Nearest) {
      t.count = 1;
      t.index[0] = resolve(static_cast<int64_t>(pos));  // truncates, as the reference does
      t.weight[0] = 1;
      return t;
    }
    const double first = std::floor(pos);
    const double frac = pos - first;
    const auto base = static_cast<int64_t>(first);
    if (a_.mode == Mode::Linear) {
      t.count = 2;
      t.weight[0] = 1 - frac;
      t.weight[1] = frac;
      for (int k = 0; k < 2; ++k) t.index[k] = resolve(base + k);
    } else {
      t.count = 4;
      cubic_weights(frac, t.weight);
      for (int k = 0; k < 4; ++k) t.index[k] = resolve(base - 1 + k);
    }
    return t;
  }

 private:
  // Where an integer tap reads from, or -1 for zero padding.
  int64_t resolve(int64_t i) const {
    if (i >= 0 && i < size_) return i;
    switch (a_.padding) {
      case Padding::Zeros:
        return -1;
      case Padding::Border:
        return i < 0 ? 0 : size_ - 1;
      case Padding::Reflection: {
        const auto r = static_cast<int64_t>(reflect(static_cast<double>(i), lo_, hi_));
        return r >= 0 && r < size_ ? r : -1;
      }
    }
    return -1;
  }

  GridSampleAttrs a_;
  int64_t size_;
  double lo_, hi_;
};

struct Tap {
  int64_t offset;
  double weight;
};

template <class T, class G>
void grid_sample(const GridSampleAttrs& a, const Tensor& x, const Tensor& grid, Tensor& y) {
  const Shape& xs = x.shape();
  const int64_t batch = xs[0], channels = xs[1];
  const int rank = static_cast<int>(xs.size()) - 2;
  std::vector<AxisSampler> axes;
  Shape in_strides;
  in_strides.resize(rank);
  int64_t in_plane = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_strides[d] = in_plane;
    in_plane *= xs[2 + d];
  }
  for (int d = 0; d < rank; ++d) axes.emplace_back(a, xs[2 + d]);
  int64_t out_plane = 1;
  for (int d = 0; d < rank; ++d) out_plane *= grid.shape()[1 + d];

  using C = std::conditional_t<std::is_same_v<G, double>, double, float>;
  const T* xd = x.data<T>();
  const G* gd = grid.data<G>();
  T* yd = y.mutable_data<T>();
  parallel_for(batch * out_plane, 16, [&](int64_t begin, int64_t end) {
    std::vector<Tap> taps;
    AxisTaps per_axis[kMaxSpatialRank];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / out_plane, p = item % out_plane;
      const G* g = gd + item * rank;
      // The grid lists coordinates innermost axis first: (x, y[, z]).
      for (int d = 0; d < rank; ++d) {
        per_axis[d] = axes[d].taps(static_cast<C>(vision::load(g[rank - 1 - d])));
      }
      taps.clear();
      int pick[kMaxSpatialRank] = {};
      while (true) {
        int64_t offset = 0;
        double weight = 1;
        bool inside = true;
        for (int d = 0; d < rank; ++d) {
          const int64_t i = per_axis[d].index[pick[d]];
          if (i < 0) inside = false;
          offset += i * in_strides[d];
          weight *= per_axis[d].weight[pick[d]];
        }
        if (inside) taps.push_back({offset, weight});
        int d = rank - 1;
        for (; d >= 0; --d) {
          if (++pick[d] < per_axis[d].count) break;
          pick[d] = 0;
        }
        if (d < 0) break;
      }
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = xd + (n * channels + c) * in_plane;
        double sum = 0;
        for (const Tap& t : taps) sum += t.weight * vision::load(plane[t.offset]);
        yd[(n * channels + c) * out_plane + p] = vision::store<T>(sum);
      }
    }
  });
}

CpuKernel make_grid_sample(const NodeInfo& info) {
  const GridSampleAttrs a = parse_grid_sample_attrs(info);
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    const Shape& xs = x.shape();
    std::string error;
    const std::optional<Shape> out = grid_sample_output_shape(xs, grid.shape(), error);
    if (!out) ctx.fail(error);
    const auto rank = static_cast<int64_t>(xs.size()) - 2;
    if (rank > kMaxSpatialRank) {
      ctx.fail("X has " + std::to_string(rank) + " spatial axes; at most " +
               std::to_string(kMaxSpatialRank) + " are supported");
    }
    const Shape& out_shape = *out;
    // X's channels times the grid's positions can overflow when X or the grid is empty.
    vision::check_shape_size(ctx, out_shape, "the output shape");
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    visit_float(ctx, x.dtype(), "X", [&]<class T>() {
      visit_float(ctx, grid.dtype(), "grid", [&]<class G>() {
        if (y.element_count() > 0) grid_sample<T, G>(a, x, grid, y);
      });
    });
  };
}

}  // namespace

KILN_CPU_OPS(grid_sample);
void register_grid_sample_ops(OpRegistry& registry) {
  registry.add("GridSample", make_grid_sample);
}

}  // namespace kiln
