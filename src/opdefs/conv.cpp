#include "opdefs/conv.h"

#include <string>

#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"

namespace kiln {

namespace {

// Deeper windows would only be a typo; the kernels keep per-axis state on the stack.
constexpr size_t kMaxSpatialRank = 12;

Shape spatial_dims(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

// X, W and B checked against each other; returns the kernel's spatial dims.
Shape check_operands(const ir::Node& node, const ConvAttrs& attrs, const Tensor& x, const Tensor& w,
                     const Tensor* b, int64_t bias_length) {
  if (x.rank() < 3)
    fail_at(node, "X must have rank >= 3 (N, C, spatial...), got " + x.shape().to_string());
  if (x.rank() - 2 > kMaxSpatialRank)
    fail_at(node, "X has too many spatial axes: " + x.shape().to_string());
  if (w.rank() != x.rank()) {
    fail_at(node,
            "W " + w.shape().to_string() + " must have the rank of X " + x.shape().to_string());
  }
  if (w.dtype() != x.dtype()) fail_at(node, "W's element type differs from X's");
  if (x.shape()[1] % attrs.group != 0) {
    fail_at(node, "group " + std::to_string(attrs.group) + " does not divide the " +
                      std::to_string(x.shape()[1]) + " channels of X");
  }
  const Shape kernel = spatial_dims(w.shape());
  if (!attrs.window.kernel_shape.empty() && Shape(attrs.window.kernel_shape) != kernel) {
    fail_at(node, "kernel_shape " + Shape(attrs.window.kernel_shape).to_string() +
                      " does not match W " + w.shape().to_string());
  }
  for (int64_t k : kernel) {
    if (k <= 0) fail_at(node, "W " + w.shape().to_string() + " has an empty kernel");
  }
  if (b) {
    if (b->dtype() != x.dtype()) fail_at(node, "B's element type differs from X's");
    if (b->rank() != 1 || b->shape()[0] != bias_length) {
      fail_at(node, "B " + b->shape().to_string() + " must be a vector of " +
                        std::to_string(bias_length) + " values");
    }
  }
  return kernel;
}

}  // namespace

ConvAttrs parse_conv_attrs(const NodeInfo& info, bool transpose) {
  ConvAttrs a;
  a.window = parse_window_attrs(info);
  a.group = info.attr_int("group", 1);
  if (a.group < 1) info.fail("group must be >= 1, not " + std::to_string(a.group));
  if (transpose) {
    a.output_padding = info.attr_ints("output_padding");
    a.output_shape = info.attr_ints("output_shape");
  }
  return a;
}

ConvProblem resolve_conv(const ir::Node& node, const ConvAttrs& attrs, const Tensor& x,
                         const Tensor& w, const Tensor* b) {
  const int64_t out_channels = w.rank() > 0 ? w.shape()[0] : 0;
  const Shape kernel = check_operands(node, attrs, x, w, b, out_channels);
  if (w.shape()[1] * attrs.group != x.shape()[1]) {
    fail_at(node, "X has " + std::to_string(x.shape()[1]) + " channels but W " +
                      w.shape().to_string() + " with group " + std::to_string(attrs.group) +
                      " expects " + std::to_string(w.shape()[1] * attrs.group));
  }
  if (out_channels % attrs.group != 0) {
    fail_at(node, "group " + std::to_string(attrs.group) + " does not divide the " +
                      std::to_string(out_channels) + " output channels of W");
  }
  ConvProblem p;
  p.geometry = resolve_window(attrs.window, spatial_dims(x.shape()), kernel, node);
  p.batch = x.shape()[0];
  p.in_channels = x.shape()[1];
  p.out_channels = out_channels;
  p.group = attrs.group;
  return p;
}

WindowGeometry conv_transpose_geometry(const ir::Node& node, const ConvAttrs& attrs,
                                       const Shape& in, const Shape& kernel) {
  const size_t rank = in.size();
  WindowGeometry g;
  g.out = in;  // the input's positions are the windows
  g.kernel = kernel;
  g.stride = per_axis(attrs.window.strides, rank, 1, "strides", node);
  g.dilation = per_axis(attrs.window.dilations, rank, 1, "dilations", node);
  g.pad.resize(rank, 0);
  g.in.resize(rank, 0);
  Shape output_padding;
  output_padding.resize(rank, 0);
  if (!attrs.output_padding.empty()) {
    if (attrs.output_padding.size() != rank)
      fail_at(node, "output_padding must have one entry per spatial axis");
    output_padding = Shape(attrs.output_padding);
  }
  std::vector<int64_t> output_shape = attrs.output_shape;
  if (output_shape.size() == rank + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != rank) {
    fail_at(node, "output_shape must have one entry per spatial axis");
  }
  const AutoPad auto_pad = attrs.window.auto_pad;
  const bool same = auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower;
  if (auto_pad == AutoPad::kNotSet && !attrs.window.pads.empty() && output_shape.empty() &&
      attrs.window.pads.size() != 2 * rank) {
    fail_at(node, "pads must have " + std::to_string(2 * rank) + " entries");
  }
  for (size_t d = 0; d < rank; ++d) {
    if (output_padding[d] < 0) fail_at(node, "output_padding must be >= 0");
    // The output size when nothing is cropped.
    const int64_t full =
        g.stride[d] * (in[d] - 1) + output_padding[d] + (kernel[d] - 1) * g.dilation[d] + 1;
    if (!output_shape.empty() || same) {
      const int64_t out = !output_shape.empty() ? output_shape[d] : in[d] * g.stride[d];
      if (out <= 0) fail_at(node, "output_shape must be positive");
      // Negative when the output is larger than `full`: the extra rows are bias only.
      // Halved rounding down, as the ONNX reference does, so the surplus goes at the end.
      const int64_t total = full - out;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      g.pad[d] = auto_pad == AutoPad::kSameUpper ? half : total - half;
      g.in[d] = out;
    } else {
      int64_t begin = 0, end = 0;
      if (auto_pad == AutoPad::kNotSet && !attrs.window.pads.empty()) {
        begin = attrs.window.pads[d];
        end = attrs.window.pads[d + rank];
      }
      if (begin < 0 || end < 0) fail_at(node, "pads must be >= 0");
      g.pad[d] = begin;
      g.in[d] = full - begin - end;
      if (g.in[d] <= 0)
        fail_at(node, "the pads crop the whole output along axis " + std::to_string(d));
    }
  }
  return g;
}

ConvProblem resolve_conv_transpose(const ir::Node& node, const ConvAttrs& attrs, const Tensor& x,
                                   const Tensor& w, const Tensor* b) {
  const int64_t out_channels = w.rank() > 1 ? w.shape()[1] * attrs.group : 0;
  const Shape kernel = check_operands(node, attrs, x, w, b, out_channels);
  if (w.shape()[0] != x.shape()[1]) {
    fail_at(node, "X has " + std::to_string(x.shape()[1]) + " channels but W " +
                      w.shape().to_string() + " expects " + std::to_string(w.shape()[0]));
  }
  const WindowGeometry g = conv_transpose_geometry(node, attrs, spatial_dims(x.shape()), kernel);
  ConvProblem p;
  p.geometry = g;
  p.batch = x.shape()[0];
  p.in_channels = x.shape()[1];
  p.out_channels = out_channels;
  p.group = attrs.group;
  return p;
}

}  // namespace kiln
