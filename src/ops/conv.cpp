// Conv and ConvTranspose: attribute parsing, shape logic and dtype dispatch. The kernels live
// in backends/cpu/conv_*.
#include <memory>
#include <string>

#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_reference.h"
#include "core/dtype_dispatch.h"
#include "opdefs/window.h"
#include "ops/all_ops.h"
#include "ops/conv_problem.h"
#include "ops/op_registry.h"

namespace kiln {

namespace {

// Deeper windows would only be a typo; the kernels keep per-axis state on the stack.
constexpr size_t kMaxSpatialRank = 12;

Shape spatial_dims(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

// X, W and B checked against each other; returns the kernel's spatial dims.
Shape check_operands(const OpContext& ctx, const ConvAttrs& attrs, const Tensor& x, const Tensor& w,
                     const Tensor* b, int64_t bias_length) {
  if (x.rank() < 3)
    ctx.fail("X must have rank >= 3 (N, C, spatial...), got " + x.shape().to_string());
  if (x.rank() - 2 > kMaxSpatialRank)
    ctx.fail("X has too many spatial axes: " + x.shape().to_string());
  if (w.rank() != x.rank()) {
    ctx.fail("W " + w.shape().to_string() + " must have the rank of X " + x.shape().to_string());
  }
  if (w.dtype() != x.dtype()) ctx.fail("W's element type differs from X's");
  if (x.shape()[1] % attrs.group != 0) {
    ctx.fail("group " + std::to_string(attrs.group) + " does not divide the " +
             std::to_string(x.shape()[1]) + " channels of X");
  }
  const Shape kernel = spatial_dims(w.shape());
  if (!attrs.window.kernel_shape.empty() && Shape(attrs.window.kernel_shape) != kernel) {
    ctx.fail("kernel_shape " + Shape(attrs.window.kernel_shape).to_string() + " does not match W " +
             w.shape().to_string());
  }
  for (int64_t k : kernel) {
    if (k <= 0) ctx.fail("W " + w.shape().to_string() + " has an empty kernel");
  }
  if (b) {
    if (b->dtype() != x.dtype()) ctx.fail("B's element type differs from X's");
    if (b->rank() != 1 || b->shape()[0] != bias_length) {
      ctx.fail("B " + b->shape().to_string() + " must be a vector of " +
               std::to_string(bias_length) + " values");
    }
  }
  return kernel;
}

// Converts n values of a storage-only float type to float in `dst`.
template <class T>
const float* widen(const T* src, int64_t n, float* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  return dst;
}

// Runs the conv (or its transpose) for element type T: float32 takes the fast path, the small
// float types go through float32, the others (double) through the reference loop nest.
template <class T>
void run_typed(const OpContext& ctx, const cpu::ConvProblem& p, bool transpose, const Tensor& x,
               const Tensor& w, const Tensor* b, Tensor& y, const cpu::PackedConvWeights* packed) {
  using cpu::ConvScratch;
  if constexpr (std::is_same_v<T, float>) {
    const float* bias = b ? b->data<float>() : nullptr;
    if (transpose) {
      cpu::conv_transpose_f32(p, x.data<float>(), w.data<float>(), bias, y.mutable_data<float>());
    } else {
      cpu::conv_f32(p, x.data<float>(), w.data<float>(), bias, y.mutable_data<float>(), packed);
    }
  } else if constexpr (is_small_float_v<T>) {
    auto scratch = [](ConvScratch slot, int64_t n) {
      return cpu::conv_scratch(slot, static_cast<size_t>(n));
    };
    const float* xf =
        widen(x.data<T>(), x.element_count(), scratch(ConvScratch::kInput, x.element_count()));
    const float* wf =
        widen(w.data<T>(), w.element_count(), scratch(ConvScratch::kWeights, w.element_count()));
    const float* bf =
        b ? widen(b->data<T>(), b->element_count(), scratch(ConvScratch::kBias, b->element_count()))
          : nullptr;
    float* yf = scratch(ConvScratch::kOutput, y.element_count());
    if (transpose) {
      cpu::conv_transpose_f32(p, xf, wf, bf, yf);
    } else {
      cpu::conv_f32(p, xf, wf, bf, yf);
    }
    T* out = y.mutable_data<T>();
    for (int64_t i = 0; i < y.element_count(); ++i) out[i] = T(yf[i]);
  } else if constexpr (std::is_floating_point_v<T>) {
    const T* bias = b ? b->data<T>() : nullptr;
    if (transpose) {
      cpu::conv_transpose_reference<T, double>(p, x.data<T>(), w.data<T>(), bias,
                                               y.mutable_data<T>());
    } else {
      cpu::conv_reference<T, double>(p, x.data<T>(), w.data<T>(), bias, y.mutable_data<T>());
    }
  } else {
    ctx.fail("element type " + std::string(dtype_name(x.dtype())) + " is not supported");
  }
}

void dispatch(const OpContext& ctx, const cpu::ConvProblem& p, bool transpose, const Tensor& x,
              const Tensor& w, const Tensor* b, Tensor& y,
              const cpu::PackedConvWeights* packed = nullptr) {
  switch (x.dtype()) {
    case DataType::Float32:
      return run_typed<float>(ctx, p, transpose, x, w, b, y, packed);
    case DataType::Float64:
      return run_typed<double>(ctx, p, transpose, x, w, b, y, nullptr);
    case DataType::Float16:
      return run_typed<Float16>(ctx, p, transpose, x, w, b, y, nullptr);
    case DataType::BFloat16:
      return run_typed<BFloat16>(ctx, p, transpose, x, w, b, y, nullptr);
    default:
      ctx.fail("element type " + std::string(dtype_name(x.dtype())) +
               " is not supported (float32, float64, float16, bfloat16)");
  }
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

cpu::ConvProblem resolve_conv(const OpContext& ctx, const ConvAttrs& attrs, const Tensor& x,
                              const Tensor& w, const Tensor* b) {
  const int64_t out_channels = w.rank() > 0 ? w.shape()[0] : 0;
  const Shape kernel = check_operands(ctx, attrs, x, w, b, out_channels);
  if (w.shape()[1] * attrs.group != x.shape()[1]) {
    ctx.fail("X has " + std::to_string(x.shape()[1]) + " channels but W " + w.shape().to_string() +
             " with group " + std::to_string(attrs.group) + " expects " +
             std::to_string(w.shape()[1] * attrs.group));
  }
  if (out_channels % attrs.group != 0) {
    ctx.fail("group " + std::to_string(attrs.group) + " does not divide the " +
             std::to_string(out_channels) + " output channels of W");
  }
  cpu::ConvProblem p;
  p.geometry = resolve_window(attrs.window, spatial_dims(x.shape()), kernel, ctx.node());
  p.batch = x.shape()[0];
  p.in_channels = x.shape()[1];
  p.out_channels = out_channels;
  p.group = attrs.group;
  return p;
}

cpu::ConvProblem resolve_conv_transpose(const OpContext& ctx, const ConvAttrs& attrs,
                                        const Tensor& x, const Tensor& w, const Tensor* b) {
  const int64_t out_channels = w.rank() > 1 ? w.shape()[1] * attrs.group : 0;
  const Shape kernel = check_operands(ctx, attrs, x, w, b, out_channels);
  if (w.shape()[0] != x.shape()[1]) {
    ctx.fail("X has " + std::to_string(x.shape()[1]) + " channels but W " + w.shape().to_string() +
             " expects " + std::to_string(w.shape()[0]));
  }
  const Shape in = spatial_dims(x.shape());
  const size_t rank = in.size();
  WindowGeometry g;
  g.out = in;  // the input's positions are the windows
  g.kernel = kernel;
  g.stride = per_axis(attrs.window.strides, rank, 1, "strides", ctx.node());
  g.dilation = per_axis(attrs.window.dilations, rank, 1, "dilations", ctx.node());
  g.pad.resize(rank, 0);
  g.in.resize(rank, 0);
  Shape output_padding;
  output_padding.resize(rank, 0);
  if (!attrs.output_padding.empty()) {
    if (attrs.output_padding.size() != rank)
      ctx.fail("output_padding must have one entry per spatial axis");
    output_padding = Shape(attrs.output_padding);
  }
  std::vector<int64_t> output_shape = attrs.output_shape;
  if (output_shape.size() == rank + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != rank) {
    ctx.fail("output_shape must have one entry per spatial axis");
  }
  const AutoPad auto_pad = attrs.window.auto_pad;
  const bool same = auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower;
  if (auto_pad == AutoPad::kNotSet && !attrs.window.pads.empty() && output_shape.empty() &&
      attrs.window.pads.size() != 2 * rank) {
    ctx.fail("pads must have " + std::to_string(2 * rank) + " entries");
  }
  for (size_t d = 0; d < rank; ++d) {
    if (output_padding[d] < 0) ctx.fail("output_padding must be >= 0");
    // The output size when nothing is cropped.
    const int64_t full =
        g.stride[d] * (in[d] - 1) + output_padding[d] + (kernel[d] - 1) * g.dilation[d] + 1;
    if (!output_shape.empty() || same) {
      const int64_t out = !output_shape.empty() ? output_shape[d] : in[d] * g.stride[d];
      if (out <= 0) ctx.fail("output_shape must be positive");
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
      if (begin < 0 || end < 0) ctx.fail("pads must be >= 0");
      g.pad[d] = begin;
      g.in[d] = full - begin - end;
      if (g.in[d] <= 0) ctx.fail("the pads crop the whole output along axis " + std::to_string(d));
    }
  }
  cpu::ConvProblem p;
  p.geometry = g;
  p.batch = x.shape()[0];
  p.in_channels = x.shape()[1];
  p.out_channels = out_channels;
  p.group = attrs.group;
  return p;
}

namespace {

CpuKernel make_conv(const NodeInfo& info) {
  const ConvAttrs attrs = parse_conv_attrs(info, false);
  // Constant float32 weights are packed once here for the GEMM; the kernel checks at run time
  // that the W it is given is still this one before using them.
  std::shared_ptr<const cpu::PackedConvWeights> packed;
  const Tensor* cw = info.constant_input(1);
  if (cw && cw->dtype() == DataType::Float32 && cw->rank() >= 3 && cw->shape()[0] > 0 &&
      cw->shape()[0] % attrs.group == 0 &&
      cpu::conv_wants_packed_weights(attrs.group, cw->shape()[1])) {
    const int64_t row_length = cw->element_count() / cw->shape()[0];
    packed = std::make_shared<const cpu::PackedConvWeights>(
        cpu::pack_conv_weights(cw->data<float>(), cw->shape()[0], attrs.group, row_length));
  }
  return [attrs, packed](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const cpu::ConvProblem p = resolve_conv(ctx, attrs, x, w, b);
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : p.geometry.out) y_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    dispatch(ctx, p, false, x, w, b, y, packed.get());
  };
}

CpuKernel make_conv_transpose(const NodeInfo& info) {
  const ConvAttrs attrs = parse_conv_attrs(info, true);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const cpu::ConvProblem p = resolve_conv_transpose(ctx, attrs, x, w, b);
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : p.geometry.in) y_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    dispatch(ctx, p, true, x, w, b, y);
  };
}

}  // namespace

void register_conv_ops(OpRegistry& registry) {
  registry.add("Conv", make_conv);
  registry.add("ConvTranspose", make_conv_transpose);
}

}  // namespace kiln
