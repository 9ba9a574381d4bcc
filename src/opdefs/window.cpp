#include "opdefs/window.h"

#include <optional>
#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/conv.h"
#include "opdefs/fused_conv.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

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
               const ir::Node& node) {
  Shape s;
  if (values.empty()) {
    s.resize(rank, fallback);
    return s;
  }
  if (values.size() != rank) {
    fail_at(node, std::string(name) + " " + list(values) + " has " + std::to_string(values.size()) +
                      " entries but the input has " + std::to_string(rank) + " spatial axes");
  }
  for (int64_t v : values) {
    if (v <= 0) fail_at(node, std::string(name) + " " + list(values) + " must be positive");
  }
  return Shape(values);
}

std::optional<int64_t> window_output_size(int64_t in, int64_t kernel, int64_t stride,
                                          int64_t dilation, int64_t pad_begin, int64_t pad_end,
                                          bool ceil_mode) {
  const int64_t span = in + pad_begin + pad_end - ((kernel - 1) * dilation + 1);
  if (span < 0) return std::nullopt;
  if (!ceil_mode) return span / stride + 1;
  int64_t out = (span + stride - 1) / stride + 1;
  // A last window that would start inside the end padding is dropped.
  if ((out - 1) * stride >= in + pad_begin) --out;
  return out;
}

WindowGeometry resolve_window(const WindowAttrs& attrs, const Shape& in, const Shape& kernel,
                              const ir::Node& node, Shape* end_pads) {
  const size_t rank = in.size();
  WindowGeometry g;
  g.in = in;
  g.kernel = kernel;
  g.stride = per_axis(attrs.strides, rank, 1, "strides", node);
  g.dilation = per_axis(attrs.dilations, rank, 1, "dilations", node);
  g.out.resize(rank);
  g.pad.resize(rank, 0);
  Shape pad_end;
  pad_end.resize(rank, 0);
  if (attrs.auto_pad == AutoPad::kNotSet && !attrs.pads.empty()) {
    if (attrs.pads.size() != 2 * rank) {
      fail_at(node, "pads " + list(attrs.pads) + " must have " + std::to_string(2 * rank) +
                        " entries for " + std::to_string(rank) + " spatial axes");
    }
    for (size_t d = 0; d < rank; ++d) {
      g.pad[d] = attrs.pads[d];
      pad_end[d] = attrs.pads[d + rank];
      if (g.pad[d] < 0 || pad_end[d] < 0)
        fail_at(node, "pads " + list(attrs.pads) + " must be >= 0");
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (kernel[d] <= 0) fail_at(node, "kernel size " + kernel.to_string() + " must be positive");
    const int64_t s = g.stride[d];
    const int64_t dk = (kernel[d] - 1) * g.dilation[d] + 1;
    if (attrs.auto_pad == AutoPad::kSameUpper || attrs.auto_pad == AutoPad::kSameLower) {
      g.out[d] = (in[d] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * s + dk - in[d]);
      g.pad[d] = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      pad_end[d] = total - g.pad[d];
      continue;
    }
    const std::optional<int64_t> out = window_output_size(in[d], kernel[d], s, g.dilation[d],
                                                          g.pad[d], pad_end[d], attrs.ceil_mode);
    if (!out) {
      fail_at(node, "the window (kernel " + kernel.to_string() + ", dilations " +
                        g.dilation.to_string() + ") is larger than the padded input " +
                        in.to_string());
    }
    g.out[d] = *out;
  }
  if (end_pads) *end_pads = pad_end;
  return g;
}

}  // namespace kiln

// ---- definitions ----------------------------------------------------------------------------

namespace kiln {
namespace {

// Where a convolution's operands are, and its output type.
struct ConvOperands {
  size_t w;        // the weights' input (X is input 0)
  DataType dtype;  // Undefined: X's
};

std::optional<ConvOperands> conv_operands(const InferenceContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (op == "Conv" || op == "ConvTranspose" || is_fused_conv(ctx.node()) ||
      is_ms_fused_conv(ctx.node()))
    return ConvOperands{1, DataType::Undefined};
  if (op == "ConvInteger") return ConvOperands{1, DataType::Int32};
  if (op == "QLinearConv") {
    // QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B):
    // y has y_zero_point's type, x's when it is absent.
    const bool has_zero_point = ctx.num_inputs() > 7 && !ctx.node().inputs[7].empty();
    if (has_zero_point && !ctx.input(7)) throw Error("y_zero_point's type is unknown");
    return ConvOperands{3, has_zero_point ? ctx.input(7)->dtype : DataType::Undefined};
  }
  return std::nullopt;  // pooling
}

// The convolutions (Conv, ConvTranspose, ConvInteger, QLinearConv) and the windowed pooling
// ops: [N, C or M, spatial outputs...]; MaxPool's Indices too.
std::vector<ValueInfo> window_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::optional<ConvOperands> conv = conv_operands(ctx);
  const DataType dtype = conv && conv->dtype != DataType::Undefined ? conv->dtype : x->dtype;
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() < 3) return {dtype_only(dtype)};
  const size_t spatial = xs->size() - 2;
  const bool transpose = ctx.node().op_type == "ConvTranspose";
  const ConvAttrs attrs = conv ? parse_conv_attrs(ctx.info(), transpose)
                               : ConvAttrs{parse_window_attrs(ctx.info()), 1, {}, {}};
  Shape kernel(attrs.window.kernel_shape);
  Dim channels = (*xs)[1];
  if (conv) {
    const std::vector<Dim>* ws = ctx.shape(conv->w);
    if (!ws || ws->size() != xs->size()) return {dtype_only(dtype)};
    // Conv's W is [M, C/group, k...], ConvTranspose's [C, M/group, k...].
    channels = transpose ? ((*ws)[1].is_fixed() ? fixed_dim((*ws)[1].value * attrs.group) : Dim{})
                         : (*ws)[0];
    for (size_t d = 2; kernel.empty() && d < ws->size(); ++d) {
      if (!(*ws)[d].is_fixed()) return {dtype_only(dtype)};
    }
    if (kernel.empty()) {
      for (size_t d = 2; d < ws->size(); ++d) kernel.push_back((*ws)[d].value);
    }
  }
  if (kernel.size() != spatial) return {dtype_only(dtype)};
  // An output axis depends only on its own input axis, so a symbolic axis is resolved with a
  // stand-in extent (larger than any window) and reported unknown.
  constexpr int64_t kStandIn = int64_t{1} << 40;
  Shape in;
  for (size_t d = 0; d < spatial; ++d) {
    const Dim& dim = (*xs)[2 + d];
    in.push_back(dim.is_fixed() ? dim.value : kStandIn);
  }
  // ConvTranspose's output is the geometry's image, the others' its window positions.
  const WindowGeometry g = transpose ? conv_transpose_geometry(ctx.node(), attrs, in, kernel)
                                     : resolve_window(attrs.window, in, kernel, ctx.node());
  const Shape& out_spatial = transpose ? g.in : g.out;
  std::vector<Dim> out = {(*xs)[0], channels};
  for (size_t d = 0; d < spatial; ++d) {
    out.push_back((*xs)[2 + d].is_fixed() ? fixed_dim(out_spatial[d]) : Dim{});
  }
  std::vector<ValueInfo> result = {tensor_type(dtype, out)};
  if (ctx.node().op_type == "MaxPool") result.push_back(tensor_type(DataType::Int64, out));
  return result;
}

std::vector<ValueInfo> global_pool_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs || xs->size() < 2) return {dtype_only(x->dtype)};
  std::vector<Dim> out = {(*xs)[0], (*xs)[1]};
  out.resize(xs->size(), fixed_dim(1));
  return {tensor_type(x->dtype, out)};
}

}  // namespace

KILN_OP_DEFS(window);
void define_window_ops(OpDefs& defs) {
  for (const char* op : {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool",
                         "AveragePool", "LpPool"}) {
    defs.define(op).infer = window_rule;
  }
  defs.define(kKilnDomain, kFusedConvOp).infer = window_rule;  // Y has Conv's shape
  defs.define(ir::kMicrosoftDomain, kMsFusedConvOp).infer = window_rule;
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    defs.define(op).infer = global_pool_rule;
  }
}

}  // namespace kiln
