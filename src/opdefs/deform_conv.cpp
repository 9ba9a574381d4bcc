#include "opdefs/deform_conv.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln {
namespace {

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

// The geometry from X, W and offset's shapes.
DeformGeometry geometry(const NodeInputs& in, const DeformConvAttrs& a, const Tensor& x,
                        const Tensor& w, const Tensor& offset) {
  const Shape &xs = x.shape(), &ws = w.shape(), &os = offset.shape();
  if (xs.size() != 4) {
    in.fail("only 2-D deformable convolution is supported: X must be (N, C, H, W), got " +
            xs.to_string());
  }
  if (ws.size() != 4) in.fail("W must be (oC, C / group, kH, kW), got " + ws.to_string());
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
    in.fail("kernel_shape does not match W's shape " + ws.to_string());
  }
  // An empty kernel has no taps, so an empty offset tensor would fit any output size.
  if (g.k_h <= 0 || g.k_w <= 0) in.fail("W's kernel " + ws.to_string() + " must not be empty");
  int64_t grouped_c = 0;
  if (__builtin_mul_overflow(ws[1], g.group, &grouped_c) || g.in_c != grouped_c ||
      g.out_c % g.group != 0) {
    in.fail("X " + xs.to_string() + " and W " + ws.to_string() +
            " do not fit group = " + std::to_string(g.group));
  }
  if (g.in_c % g.offset_group != 0) {
    in.fail("offset_group " + std::to_string(g.offset_group) + " does not divide the " +
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
  const auto room = [&](int64_t size, int64_t pad_begin, int64_t pad_end, int64_t k, int64_t dil) {
    int64_t extent = 0, padded = 0;
    if (__builtin_mul_overflow(k - 1, dil, &extent) ||
        __builtin_add_overflow(size, pad_begin, &padded) ||
        __builtin_add_overflow(padded, pad_end, &padded)) {
      in.fail("the padded input or the dilated kernel is too large");
    }
    return padded - extent - 1;
  };
  const int64_t room_h = room(g.in_h, g.pad_h, pad_h_end, g.k_h, g.dil_h);
  const int64_t room_w = room(g.in_w, g.pad_w, pad_w_end, g.k_w, g.dil_w);
  if (room_h < 0 || room_w < 0) in.fail("the kernel is larger than the padded input");
  g.out_h = room_h / g.stride_h + 1;
  g.out_w = room_w / g.stride_w + 1;
  int64_t offset_channels = 0;
  if (__builtin_mul_overflow(g.k_h, g.k_w, &offset_channels) ||
      __builtin_mul_overflow(offset_channels, 2 * g.offset_group, &offset_channels)) {
    in.fail("offset_group " + std::to_string(g.offset_group) + " and the kernel " + ws.to_string() +
            " are too large");
  }
  const Shape expected_offset{g.batch, offset_channels, g.out_h, g.out_w};
  if (os != expected_offset) {
    in.fail("offset must have shape " + expected_offset.to_string() + ", got " + os.to_string());
  }
  return g;
}

}  // namespace

DeformConvAttrs parse_deform_conv_attrs(const NodeInfo& info) {
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
  return a;
}

DeformGeometry resolve_deform_conv(const NodeInputs& in, const DeformConvAttrs& a) {
  const Tensor& x = in.input(0);
  const Tensor& w = in.input(1);
  const Tensor& offset = in.input(2);
  const DeformGeometry g = geometry(in, a, x, w, offset);
  const Tensor* bias = in.has_input(3) ? &in.inputs[3] : nullptr;
  const Tensor* mask = in.has_input(4) ? &in.inputs[4] : nullptr;
  if (bias && bias->shape() != Shape{g.out_c}) {
    in.fail("B must have shape (" + std::to_string(g.out_c) + "), got " +
            bias->shape().to_string());
  }
  const Shape mask_shape{g.batch, g.offset_group * g.taps(), g.out_h, g.out_w};
  if (mask && mask->shape() != mask_shape) {
    in.fail("mask must have shape " + mask_shape.to_string() + ", got " +
            mask->shape().to_string());
  }
  for (const Tensor* t : {&w, &offset, bias, mask}) {
    if (t && t->dtype() != x.dtype()) in.fail("all inputs must have X's element type");
  }
  return g;
}

}  // namespace kiln
