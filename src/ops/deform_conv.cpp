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
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

struct DeformConvAttrs {
  std::vector<int64_t> dilations, kernel_shape, pads, strides;
  int64_t group = 1, offset_group = 1;
};

// The resolved geometry of one run.
struct DeformGeometry {
  int64_t batch, in_c, in_h, in_w, out_c, out_h, out_w, k_h, k_w;
  int64_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
  int64_t group, offset_group;
  int64_t taps() const { return k_h * k_w; }
};

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

DeformGeometry resolve(const OpContext& ctx, const DeformConvAttrs& a, const Tensor& x,
                       const Tensor& w, const Tensor& offset) {
  const Shape &xs = x.shape(), &ws = w.shape(), &os = offset.shape();
  if (xs.size() != 4) {
    ctx.fail("only 2-D deformable convolution is supported: X must be (N, C, H, W), got " +
             xs.to_string());
  }
  if (ws.size() != 4) ctx.fail("W must be (oC, C / group, kH, kW), got " + ws.to_string());
  DeformGeometry g{};
  g.batch = xs[0];
  g.in_c = xs[1];
  g.in_h = xs[2];
  g.in_w = xs[3];
  g.out_c = ws[0];
  g.group = a.group;
  g.offset_group = a.offset_group;
  g.k_h = a.kernel_shape.empty() ? ws[2] : a.kernel_shape[0];
  g.k_w = a.kernel_shape.empty() ? ws[3] : a.kernel_shape[1];
  if (g.k_h != ws[2] || g.k_w != ws[3]) {
    ctx.fail("kernel_shape does not match W's shape " + ws.to_string());
  }
  // An empty kernel has no taps, so an empty offset tensor would fit any output size.
  if (g.k_h <= 0 || g.k_w <= 0) ctx.fail("W's kernel " + ws.to_string() + " must not be empty");
  int64_t grouped_c = 0;
  if (__builtin_mul_overflow(ws[1], g.group, &grouped_c) || g.in_c != grouped_c ||
      g.out_c % g.group != 0) {
    ctx.fail("X " + xs.to_string() + " and W " + ws.to_string() +
             " do not fit group = " + std::to_string(g.group));
  }
  if (g.in_c % g.offset_group != 0) {
    ctx.fail("offset_group " + std::to_string(g.offset_group) + " does not divide the " +
             std::to_string(g.in_c) + " input channels");
  }
  g.stride_h = a.strides.empty() ? 1 : a.strides[0];
  g.stride_w = a.strides.empty() ? 1 : a.strides[1];
  g.dil_h = a.dilations.empty() ? 1 : a.dilations[0];
  g.dil_w = a.dilations.empty() ? 1 : a.dilations[1];
  g.pad_h = a.pads.empty() ? 0 : a.pads[0];
  g.pad_w = a.pads.empty() ? 0 : a.pads[1];
  const int64_t pad_h_end = a.pads.empty() ? 0 : a.pads[2];
  const int64_t pad_w_end = a.pads.empty() ? 0 : a.pads[3];
  // The room the dilated kernel leaves in the padded input; huge sizes (of an empty X or W) or
  // attributes must not overflow.
  const auto room = [&](int64_t in, int64_t pad_begin, int64_t pad_end, int64_t k, int64_t dil) {
    int64_t extent = 0, padded = 0;
    if (__builtin_mul_overflow(k - 1, dil, &extent) ||
        __builtin_add_overflow(in, pad_begin, &padded) ||
        __builtin_add_overflow(padded, pad_end, &padded)) {
      ctx.fail("the padded input or the dilated kernel is too large");
    }
    return padded - extent - 1;
  };
  const int64_t room_h = room(g.in_h, g.pad_h, pad_h_end, g.k_h, g.dil_h);
  const int64_t room_w = room(g.in_w, g.pad_w, pad_w_end, g.k_w, g.dil_w);
  if (room_h < 0 || room_w < 0) ctx.fail("the kernel is larger than the padded input");
  g.out_h = room_h / g.stride_h + 1;
  g.out_w = room_w / g.stride_w + 1;
  int64_t offset_channels = 0;
  if (__builtin_mul_overflow(g.k_h, g.k_w, &offset_channels) ||
      __builtin_mul_overflow(offset_channels, 2 * g.offset_group, &offset_channels)) {
    ctx.fail("offset_group " + std::to_string(g.offset_group) + " and the kernel " +
             ws.to_string() + " are too large");
  }
  const Shape expected_offset{g.batch, offset_channels, g.out_h, g.out_w};
  if (os != expected_offset) {
    ctx.fail("offset must have shape " + expected_offset.to_string() + ", got " + os.to_string());
  }
  return g;
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

void check_positive(const NodeInfo& info, const std::vector<int64_t>& v, size_t count,
                    const char* name, bool allow_zero) {
  if (!v.empty() && v.size() != count) {
    info.fail(std::string(name) + " must have " + std::to_string(count) + " values");
  }
  // Past 2^31 a size is corrupt; the bound keeps the geometry's arithmetic exact.
  constexpr int64_t kLimit = int64_t{1} << 31;
  for (int64_t e : v) {
    if (e < 0 || (e == 0 && !allow_zero) || e > kLimit) {
      info.fail(std::string(name) + " must be " + (allow_zero ? "non-negative" : "positive") +
                " and at most 2^31");
    }
  }
}

CpuKernel make_deform_conv(const NodeInfo& info) {
  DeformConvAttrs a;
  a.dilations = info.attr_ints("dilations");
  a.kernel_shape = info.attr_ints("kernel_shape");
  a.pads = info.attr_ints("pads");
  a.strides = info.attr_ints("strides");
  a.group = info.attr_int("group", 1);
  a.offset_group = info.attr_int("offset_group", 1);
  check_positive(info, a.dilations, 2, "dilations", false);
  check_positive(info, a.kernel_shape, 2, "kernel_shape", false);
  check_positive(info, a.pads, 4, "pads", true);
  check_positive(info, a.strides, 2, "strides", false);
  if (a.group <= 0 || a.offset_group <= 0 || a.group > (int64_t{1} << 31) ||
      a.offset_group > (int64_t{1} << 31)) {
    info.fail("group and offset_group must be in [1, 2^31]");
  }
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& offset = ctx.input(2);
    const DeformGeometry g = resolve(ctx, a, x, w, offset);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    if (bias && bias->shape() != Shape{g.out_c}) {
      ctx.fail("B must have shape (" + std::to_string(g.out_c) + "), got " +
               bias->shape().to_string());
    }
    const Shape mask_shape{g.batch, g.offset_group * g.taps(), g.out_h, g.out_w};
    if (mask && mask->shape() != mask_shape) {
      ctx.fail("mask must have shape " + mask_shape.to_string() + ", got " +
               mask->shape().to_string());
    }
    for (const Tensor* t : {&w, &offset, bias, mask}) {
      if (t && t->dtype() != x.dtype()) ctx.fail("all inputs must have X's element type");
    }
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
