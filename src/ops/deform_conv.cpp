// DeformConv (opsets 19, 22): a 2-D convolution whose kernel taps are displaced by learned,
// per-position offsets (and optionally scaled by a mask). Displaced taps land between pixels and
// read X bilinearly, with zeros outside the image.
//
// For each output position the displaced samples of every input channel are gathered once into
// a column (C * kH * kW values), then every output channel is a dot product of its weights with
// its group's part of that column.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/deform_conv.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

// X[y, x] of one plane, bilinearly, reading zero outside the image.
template <class T>
double sample(const T* plane, int64_t h, int64_t w, double y, double x) {
  if (!(y > -1.0 && y < static_cast<double>(h) && x > -1.0 && x < static_cast<double>(w))) {
    return 0.0;  // also NaN: every tap would be outside
  }
  const double y0f = std::floor(y), x0f = std::floor(x);
  const auto y0 = static_cast<int64_t>(y0f), x0 = static_cast<int64_t>(x0f);
  const double ly = y - y0f, lx = x - x0f;
  double v = 0;
  for (int dy = 0; dy < 2; ++dy) {
    const int64_t yy = y0 + dy;
    if (yy < 0 || yy >= h) continue;
    const double wy = dy ? ly : 1 - ly;
    for (int dx = 0; dx < 2; ++dx) {
      const int64_t xx = x0 + dx;
      if (xx < 0 || xx >= w) continue;
      v += wy * (dx ? lx : 1 - lx) * vision::load(plane[yy * w + xx]);
    }
  }
  return v;
}

template <class T>
void deform_conv(const DeformGeometry& g, const T* x, const T* w, const T* offset, const T* bias,
                 const T* mask, T* y) {
  const int64_t taps = g.taps(), plane_out = g.out_h * g.out_w;
  const int64_t in_per_group = g.in_c / g.group, out_per_group = g.out_c / g.group;
  const int64_t in_per_offset_group = g.in_c / g.offset_group;
  parallel_for(g.batch * plane_out, 4, [&](int64_t begin, int64_t end) {
    std::vector<double> column(static_cast<size_t>(g.in_c * taps));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / plane_out, p = item % plane_out;
      const int64_t oh = p / g.out_w, ow = p % g.out_w;
      // Offsets are (offset_group, kH, kW, [dy, dx]) channels, masks (offset_group, kH, kW).
      const T* off = offset + n * g.offset_group * 2 * taps * plane_out + p;
      const T* msk = mask ? mask + n * g.offset_group * taps * plane_out + p : nullptr;
      for (int64_t c = 0; c < g.in_c; ++c) {
        const int64_t og = c / in_per_offset_group;
        const T* plane = x + (n * g.in_c + c) * g.in_h * g.in_w;
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t i = k / g.k_w, j = k % g.k_w;
          const double dy = vision::load(off[((og * taps + k) * 2) * plane_out]);
          const double dx = vision::load(off[((og * taps + k) * 2 + 1) * plane_out]);
          const double yy = static_cast<double>(oh * g.stride_h - g.pad_h + i * g.dil_h) + dy;
          const double xx = static_cast<double>(ow * g.stride_w - g.pad_w + j * g.dil_w) + dx;
          double v = sample(plane, g.in_h, g.in_w, yy, xx);
          if (msk) v *= vision::load(msk[(og * taps + k) * plane_out]);
          column[c * taps + k] = v;
        }
      }
      for (int64_t oc = 0; oc < g.out_c; ++oc) {
        const int64_t grp = oc / out_per_group;
        const double* col = column.data() + grp * in_per_group * taps;
        const T* wr = w + oc * in_per_group * taps;
        double acc = bias ? vision::load(bias[oc]) : 0.0;
        for (int64_t k = 0; k < in_per_group * taps; ++k) acc += vision::load(wr[k]) * col[k];
        y[(n * g.out_c + oc) * plane_out + p] = vision::store<T>(acc);
      }
    }
  });
}

CpuKernel make_deform_conv(const NodeInfo& info) {
  const DeformConvAttrs a = parse_deform_conv_attrs(info);
  return [a](OpContext& ctx) {
    const DeformGeometry g = resolve_deform_conv(NodeInputs{ctx.node(), ctx.inputs()}, a);
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& offset = ctx.input(2);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{g.batch, g.out_c, g.out_h, g.out_w});
    if (y.element_count() == 0) return;
    visit_float(ctx, x.dtype(), "X", [&]<class T>() {
      deform_conv<T>(g, x.data<T>(), w.data<T>(), offset.data<T>(),
                     bias ? bias->data<T>() : nullptr, mask ? mask->data<T>() : nullptr,
                     y.mutable_data<T>());
    });
  };
}

}  // namespace

KILN_CPU_OPS(deform_conv);
void register_deform_conv_ops(OpRegistry& registry) {
  registry.add("DeformConv", make_deform_conv);
}

}  // namespace kiln
