// MatMul, Conv and ConvTranspose (float32 and float16), and Gemm as draws
// (backends/gpu_pixel/matmul, conv). Conv problems are resolved by the op's definition
// (opdefs/conv.h), so both backends accept the same nodes.
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/conv.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/matmul.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "opdefs/conv.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_pixel {
namespace {

Shape matmul_output_shape(const Shape& a, const Shape& b, const MatmulParams& p) {
  // The params drop size-1 batch dimensions: the output keeps numpy's broadcast shape.
  Shape out;
  const size_t ra = a.size() >= 2 ? a.size() - 2 : 0, rb = b.size() >= 2 ? b.size() - 2 : 0;
  const size_t rank = std::max(ra, rb);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + ra >= rank ? a[i + ra - rank] : 1;
    const int64_t db = i + rb >= rank ? b[i + rb - rank] : 1;
    out.push_back(da == 1 ? db : da);
  }
  if (a.size() > 1) out.push_back(p.m);
  if (b.size() > 1) out.push_back(p.n);
  return out;
}

// Float32, or float16 summed in float32 and rounded once (half_output.h).
OpFactory matmul_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_or_half_inputs(q, reason)) return nullptr;
    return [](OpRecorder& r) {
      const DataType dtype = r.input(0).dtype();
      if (r.input(1).dtype() != dtype)
        throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      const MatmulParams p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel,
                                           [&] { return matmul_params(r.shape(0), r.shape(1)); });
      const Shape y_shape = matmul_output_shape(r.shape(0), r.shape(1), p);
      const TextureTensor& a = r.texture(0);
      const TextureTensor& b = r.texture(1);
      draw_in_dtype(r, y_shape, dtype,
                    [&](TextureTensor& y) { r.kernel<Matmul>().record(p, a, b, nullptr, y); });
    };
  };
}

OpFactory gemm_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const bool ta = q.info.attr_int("transA", 0) != 0, tb = q.info.attr_int("transB", 0) != 0;
    const float alpha = q.info.attr_float("alpha", 1.0f), beta = q.info.attr_float("beta", 1.0f);
    return [=](OpRecorder& r) {
      const bool has_c = r.has_input(2);
      const Shape c_shape = has_c ? r.shape(2) : Shape{};
      const MatmulParams p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
        return gemm_params(r.shape(0), r.shape(1), has_c ? &c_shape : nullptr, ta, tb, alpha, beta);
      });
      const TextureTensor& a = r.texture(0);
      const TextureTensor& b = r.texture(1);
      const TextureTensor* c = has_c ? &r.texture(2) : nullptr;
      r.kernel<Matmul>().record(p, a, b, c, r.output(0, Shape{p.m, p.n}));
    };
  };
}

// `fused`: a kiln::FusedConv, which adds its residual Z (input 3) and applies its activation to
// the output in the same draws.
OpFactory conv_factory(bool transpose, bool fused = false) {
  return [transpose, fused](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    // Float16 convolves in float32 and rounds once (half_output.h), as the CPU kernel does; the
    // fused activations take float32 only.
    if (!(fused ? float_inputs(q, reason) : float_or_half_inputs(q, reason))) return nullptr;
    // The draws take 1-D and 2-D windows, and 3-D ones for ConvTranspose; the weights' rank,
    // known at load time when they are a constant or their shape is fixed, tells.
    const size_t max_w_rank = transpose ? 5 : 4;
    const Tensor* w = q.info.constant_input(1);
    const Shape* w_shape = w ? &w->shape() : static_input_shape(q, 1);
    if (w_shape && (w_shape->size() < 3 || w_shape->size() > max_w_rank)) {
      reason = std::to_string(static_cast<int64_t>(w_shape->size()) - 2) +
               "-D convolutions have no GPU-pixel kernel";
      return nullptr;
    }
    const ConvAttrs attrs = parse_conv_attrs(q.info, transpose);
    ConvActivation activation = ConvActivation::kNone;
    float clip_min = 0.0f, clip_max = 0.0f;
    if (fused) {
      const std::optional<FusedConvAttrs> f = parse_covered_fused_conv(
          q.info, fused_conv_coverage(), "the GPU-pixel convolution", reason);
      if (!f) return nullptr;
      activation = f->activation;
      clip_min = f->clip_min;
      clip_max = f->clip_max;
    }
    const NodeRef node(q.info);
    return [=](OpRecorder& r) {
      const std::vector<Tensor> in = run_inputs(r);
      const Tensor* b = r.has_input(2) ? &in[2] : nullptr;
      const ConvProblem p = transpose ? resolve_conv_transpose(*node.node, attrs, in[0], in[1], b)
                                      : resolve_conv(*node.node, attrs, in[0], in[1], b);
      const size_t rank = p.geometry.rank();
      if (rank != 1 && rank != 2 && !(transpose && rank == 3))
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more spatial axes than the draws take");
      // A device limit known only per run: shaders index in 32 bits.
      if (!p.geometry.coordinates_fit_int32())
        throw RunOnCpu(RunTimeCause::DeviceLimit, "window coordinates beyond 32-bit indexing");
      ConvParams params{p.geometry, p.batch,    p.in_channels, p.out_channels,
                        p.group,    activation, clip_min,      clip_max};
      Shape y_shape{p.batch, p.out_channels};
      for (int64_t d : transpose ? p.geometry.in : p.geometry.out) y_shape.push_back(d);
      const DataType dtype = in[0].dtype();
      if (in[1].dtype() != dtype || (b && b->dtype() != dtype))
        throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      const TextureTensor& x = r.texture(0);
      const TextureTensor& wt = r.texture(1);
      const TextureTensor* bias = b ? &r.texture(2) : nullptr;
      if (transpose && rank == 1) {  // the transposed kernel draws 2-D: height 1
        WindowGeometry& g = params.geometry;
        auto lead = [](const Shape& s, int64_t v) { return Shape{v, s[0]}; };
        g = {lead(g.in, 1),     lead(g.out, 1),      lead(g.kernel, 1),
             lead(g.stride, 1), lead(g.dilation, 1), lead(g.pad, 0)};
      }
      draw_in_dtype(r, y_shape, dtype, [&](TextureTensor& y) {
        if (transpose) {
          r.kernel<Conv>().record_transpose(params, x, wt, bias, y);
        } else {
          r.kernel<Conv>().record(params, x, wt, bias, y, r.has_input(3) ? &r.texture(3) : nullptr);
        }
      });
    };
  };
}

}  // namespace

FusedConvCoverage fused_conv_coverage() {
  return {true,
          {FusedActivation::kRelu, FusedActivation::kClip, FusedActivation::kHardSwish,
           FusedActivation::kSilu}};
}

KILN_GPU_PIXEL_OPS(matmul_conv);
void register_matmul_conv_ops(OpTable& t) {
  t.add("MatMul", matmul_factory());
  t.add("Gemm", gemm_factory());
  t.add("Conv", conv_factory(false));
  t.add("ConvTranspose", conv_factory(true));
  t.add(kKilnDomain, kFusedConvOp, conv_factory(false, /*fused=*/true));
}

}  // namespace kiln::gpu_pixel
