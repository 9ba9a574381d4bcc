// Conv and ConvTranspose: attribute parsing, shape logic and dtype dispatch. The kernels live
// in backends/cpu/conv_*.
#include <memory>
#include <string>

#include "backends/cpu/conv_f32.h"
#include "backends/cpu/conv_reference.h"
#include "core/dtype_dispatch.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/conv.h"
#include "opdefs/fused_conv.h"
#include "opdefs/window.h"
#include "ops/all_ops.h"

namespace kiln {

namespace {

// Converts n values of a storage-only float type to float in `dst`.
template <class T>
const float* widen(const T* src, int64_t n, float* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
  return dst;
}

// Runs the conv (or its transpose) for element type T: float32 takes the fast path, the small
// float types go through float32, the others (double) through the reference loop nest.
template <class T>
void run_typed(const OpContext& ctx, const ConvProblem& p, bool transpose, const Tensor& x,
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

void dispatch(const OpContext& ctx, const ConvProblem& p, bool transpose, const Tensor& x,
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

namespace {

// Constant float32 weights get a PackedConvWeights, which packs or transforms them for the
// GEMM-based paths on the first run that takes one (the spatial size decides which) and keeps
// the result for the later runs.
std::shared_ptr<const cpu::PackedConvWeights> pack_constant_weights(const NodeInfo& info,
                                                                    const ConvAttrs& attrs) {
  const Tensor* cw = info.constant_input(1);
  if (cw && cw->dtype() == DataType::Float32 && cw->rank() >= 3 && cw->shape()[0] > 0 &&
      cw->shape()[0] % attrs.group == 0 &&
      cpu::conv_wants_packed_weights(attrs.group, cw->shape()[1])) {
    return std::make_shared<const cpu::PackedConvWeights>();
  }
  return nullptr;
}

CpuKernel make_conv(const NodeInfo& info) {
  const ConvAttrs attrs = parse_conv_attrs(info, false);
  std::shared_ptr<const cpu::PackedConvWeights> packed = pack_constant_weights(info, attrs);
  return [attrs, packed](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const ConvProblem p = resolve_conv(ctx.node(), attrs, x, w, b);
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : p.geometry.out) y_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    dispatch(ctx, p, false, x, w, b, y, packed.get());
  };
}

// kiln::FusedConv and com.microsoft FusedConv (opdefs/fused_conv.h): float32 only, as the
// fusion pass emits it and ONNX Runtime implements it.
CpuKernel fused_conv_kernel(const NodeInfo& info, const FusedConvAttrs& attrs) {
  std::shared_ptr<const cpu::PackedConvWeights> packed = pack_constant_weights(info, attrs.conv);
  return [attrs, packed](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (x.dtype() != DataType::Float32) {
      ctx.fail("element type " + std::string(dtype_name(x.dtype())) +
               " is not supported (float32)");
    }
    const ConvProblem p = resolve_conv(ctx.node(), attrs.conv, x, w, b);
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : p.geometry.out) y_shape.push_back(d);
    if (z && (z->dtype() != DataType::Float32 || z->shape() != y_shape)) {
      ctx.fail("the residual Z " + std::string(dtype_name(z->dtype())) + z->shape().to_string() +
               " must be float32 of the output's shape " + y_shape.to_string());
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    cpu::ConvEpilogue epilogue;
    static_cast<ActivationAttrs&>(epilogue) = attrs;
    epilogue.residual = z ? z->data<float>() : nullptr;
    cpu::conv_f32(p, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                  y.mutable_data<float>(), packed.get(), epilogue);
  };
}

CpuKernel make_fused_conv(const NodeInfo& info) {
  return fused_conv_kernel(info, parse_fused_conv_attrs(info));
}

CpuKernel make_ms_fused_conv(const NodeInfo& info) {
  return fused_conv_kernel(info, parse_ms_fused_conv_attrs(info));
}

CpuKernel make_conv_transpose(const NodeInfo& info) {
  const ConvAttrs attrs = parse_conv_attrs(info, true);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const ConvProblem p = resolve_conv_transpose(ctx.node(), attrs, x, w, b);
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : p.geometry.in) y_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    dispatch(ctx, p, true, x, w, b, y);
  };
}

}  // namespace

KILN_CPU_OPS(conv);
void register_conv_ops(OpRegistry& registry) {
  registry.add("Conv", make_conv);
  registry.add("ConvTranspose", make_conv_transpose);
  registry.add(kKilnDomain, kFusedConvOp, make_fused_conv);
  registry.add(ir::kMicrosoftDomain, kMsFusedConvOp, make_ms_fused_conv);
}

}  // namespace kiln
