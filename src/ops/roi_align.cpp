// RoiAlign (opsets 10, 16, 22): pools each region of interest of a 4-D feature map into a fixed
// output_height x output_width grid. Each output bin averages (or takes the max of) bilinear
// samples on a regular sub-grid of the bin, as Mask R-CNN defines it. The attributes, checks and
// samples are the definition's (opdefs/roi_align.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/roi_align.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

template <class T>
void pool_roi(const RoiAlignAttrs& a, const RoiPlan& plan, const T* plane, T* out) {
  const int64_t per_bin = plan.grid_h * plan.grid_w;
  const double count = static_cast<double>(std::max<int64_t>(per_bin, 1));
  const RoiSample* s = plan.samples.data();
  for (int64_t bin = 0; bin < a.out_h * a.out_w; ++bin) {
    double acc = 0;
    for (int64_t k = 0; k < per_bin; ++k, ++s) {
      double v[4];
      for (int j = 0; j < 4; ++j) v[j] = s->w[j] * vision::load(plane[s->pos[j]]);
      if (a.max_mode) {
        // As the reference: the largest weighted corner, not the interpolated value.
        const double m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
        acc = k == 0 ? m : std::max(acc, m);
      } else {
        acc += v[0] + v[1] + v[2] + v[3];
      }
    }
    out[bin] = vision::store<T>(a.max_mode ? acc : acc / count);
  }
}

CpuKernel make_roi_align(const NodeInfo& info) {
  const RoiAlignAttrs a = parse_roi_align_attrs(info);
  return [a](OpContext& ctx) {
    const NodeInputs inputs{ctx.node(), ctx.inputs()};
    const RoiAlignRun run = resolve_roi_align(inputs, a);
    const Tensor& x = ctx.input(0);
    const Shape& xs = x.shape();
    Tensor& y = ctx.allocate_output(0, x.dtype(), run.out_shape);
    if (y.element_count() == 0) return;
    const int64_t num_rois = run.out_shape[0];
    const int64_t channels = xs[1], height = xs[2], width = xs[3];
    const std::vector<RoiPlan> plans = plan_roi_align(inputs, a, height, width);
    visit_float(ctx, x.dtype(), "X", [&]<class T>() {
      const T* xd = x.data<T>();
      T* yd = y.mutable_data<T>();
      const int64_t bins = a.out_h * a.out_w;
      parallel_for(num_rois * channels, 4, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int64_t r = i / channels, c = i % channels;
          pool_roi(a, plans[r], xd + (run.batch[r] * channels + c) * height * width, yd + i * bins);
        }
      });
    });
  };
}

}  // namespace

KILN_CPU_OPS(roi_align);
void register_roi_align_ops(OpRegistry& registry) { registry.add("RoiAlign", make_roi_align); }

}  // namespace kiln
