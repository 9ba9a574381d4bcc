#include "ops/window_geometry.h"

#include <string>

#include "ops/op_registry.h"

namespace kiln {

namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

WindowAttrs parse_window_attrs(const NodeInfo& info) {
  WindowAttrs a;
  const std::string auto_pad = info.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    a.auto_pad = AutoPad::kNotSet;
  } else if (auto_pad == "VALID") {
    a.auto_pad = AutoPad::kValid;
  } else if (auto_pad == "SAME_UPPER") {
    a.auto_pad = AutoPad::kSameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    a.auto_pad = AutoPad::kSameLower;
  } else {
    info.fail("auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, not '" + auto_pad + "'");
  }
  a.kernel_shape = info.attr_ints("kernel_shape");
  a.strides = info.attr_ints("strides");
  a.dilations = info.attr_ints("dilations");
  a.pads = info.attr_ints("pads");
  a.ceil_mode = info.attr_int("ceil_mode", 0) != 0;
  for (int64_t v : a.kernel_shape) {
    if (v <= 0) info.fail("kernel_shape " + list(a.kernel_shape) + " must be positive");
  }
  for (int64_t v : a.strides) {
    if (v <= 0) info.fail("strides " + list(a.strides) + " must be positive");
  }
  for (int64_t v : a.dilations) {
    if (v <= 0) info.fail("dilations " + list(a.dilations) + " must be positive");
  }
  if (a.pads.size() % 2 != 0) info.fail("pads " + list(a.pads) + " must have an even length");
  return a;
}

Shape per_axis(const std::vector<int64_t>& values, size_t rank, int64_t fallback, const char* name,
               const OpContext& ctx) {
  Shape s;
  if (values.empty()) {
    s.resize(rank, fallback);
    return s;
  }
  if (values.size() != rank) {
    ctx.fail(std::string(name) + " " + list(values) + " has " + std::to_string(values.size()) +
             " entries but the input has " + std::to_string(rank) + " spatial axes");
  }
  for (int64_t v : values) {
    if (v <= 0) ctx.fail(std::string(name) + " " + list(values) + " must be positive");
  }
  return Shape(values);
}

cpu::ConvGeometry resolve_window(const WindowAttrs& attrs, const Shape& in, const Shape& kernel,
                                 const OpContext& ctx, Shape* end_pads) {
  const size_t rank = in.size();
  cpu::ConvGeometry g;
  g.in = in;
  g.kernel = kernel;
  g.stride = per_axis(attrs.strides, rank, 1, "strides", ctx);
  g.dilation = per_axis(attrs.dilations, rank, 1, "dilations", ctx);
  g.out.resize(rank);
  g.pad.resize(rank, 0);
  Shape pad_end;
  pad_end.resize(rank, 0);
  if (attrs.auto_pad == AutoPad::kNotSet && !attrs.pads.empty()) {
    if (attrs.pads.size() != 2 * rank) {
      ctx.fail("pads " + list(attrs.pads) + " must have " + std::to_string(2 * rank) +
               " entries for " + std::to_string(rank) + " spatial axes");
    }
    for (size_t d = 0; d < rank; ++d) {
      g.pad[d] = attrs.pads[d];
      pad_end[d] = attrs.pads[d + rank];
      if (g.pad[d] < 0 || pad_end[d] < 0) ctx.fail("pads " + list(attrs.pads) + " must be >= 0");
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (kernel[d] <= 0) ctx.fail("kernel size " + kernel.to_string() + " must be positive");
    const int64_t s = g.stride[d];
    const int64_t dk = (kernel[d] - 1) * g.dilation[d] + 1;
    if (attrs.auto_pad == AutoPad::kSameUpper || attrs.auto_pad == AutoPad::kSameLower) {
      g.out[d] = (in[d] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * s + dk - in[d]);
      g.pad[d] = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      pad_end[d] = total - g.pad[d];
      continue;
    }
    const int64_t span = in[d] + g.pad[d] + pad_end[d] - dk;
    if (span < 0) {
      ctx.fail("the window (kernel " + kernel.to_string() + ", dilations " +
               g.dilation.to_string() + ") is larger than the padded input " + in.to_string());
    }
    if (attrs.ceil_mode) {
      g.out[d] = (span + s - 1) / s + 1;
      // A last window that would start inside the end padding is dropped.
      if ((g.out[d] - 1) * s >= in[d] + g.pad[d]) --g.out[d];
    } else {
      g.out[d] = span / s + 1;
    }
  }
  if (end_pads) *end_pads = pad_end;
  return g;
}

}  // namespace kiln
