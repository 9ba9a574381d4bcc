// Conv, ConvTranspose and kiln::FusedConv on the GPU (shaders/conv*.comp; 1x1 convolutions as
// matrix products). The attributes are parsed and resolved against the operands by the op's
// definition (opdefs/conv.h, fused_conv.h), so both backends accept the same nodes. The shaders
// add kiln::FusedConv's residual and apply its activation to their output (fused_conv_coverage).
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/conv.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "opdefs/conv.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_compute {
namespace {

RecordFn conv(ConvAttrs attrs, bool transpose, NodeRef node, ActivationParams activation = {}) {
  return [=](OpRecorder& r) {
    const std::vector<Tensor> in = run_inputs(r);
    const Tensor* b = r.has_input(2) ? &r.input(2) : nullptr;
    const ConvProblem p = transpose ? resolve_conv_transpose(*node.node, attrs, in[0], in[1], b)
                                    : resolve_conv(*node.node, attrs, in[0], in[1], b);
    if (!conv_supported(p))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "more spatial axes than the GPU kernels take");
    Shape y_shape{p.batch, p.out_channels};
    for (int64_t d : transpose ? p.geometry.in : p.geometry.out) y_shape.push_back(d);
    const Buffer& x = r.buffer(0);
    const Buffer& w = r.buffer(1);
    const Buffer* bias = b ? &r.buffer(2) : nullptr;
    const Buffer* residual = r.has_input(3) ? &r.buffer(3) : nullptr;
    const Buffer& y = r.output(0, DataType::Float32, y_shape);
    r.add_work(static_cast<uint64_t>(p.geometry.out_size()) * p.geometry.kernel_size() *
               static_cast<uint64_t>(p.batch * p.out_channels * (p.in_channels / p.group)));
    if (transpose) {
      r.kernel<ConvTranspose>().record(r.cmd(), r.arena(), p, x, w, bias, y);
    } else {
      r.kernel<Conv>().record(r.cmd(), r.arena(), p, x, w, bias, y, activation, residual);
    }
  };
}

OpFactory conv_factory(bool transpose) {
  return [transpose](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const Tensor* w = q.info.constant_input(1);
    if (w && w->rank() > 2 + kConvMaxSpatialRank) {
      reason = std::to_string(w->rank() - 2) + "-D convolutions have no GPU kernel";
      return nullptr;
    }
    return conv(parse_conv_attrs(q.info, transpose), transpose, NodeRef(q.info));
  };
}

OpFactory fused_conv_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    RecordFn plain = conv_factory(false)(q, reason);
    if (!plain) return nullptr;
    const std::optional<FusedConvAttrs> attrs =
        parse_covered_fused_conv(q.info, fused_conv_coverage(), "the GPU convolution", reason);
    if (!attrs) return nullptr;
    const ActivationParams activation{attrs->activation, attrs->clip_min, attrs->clip_max};
    return conv(attrs->conv, false, NodeRef(q.info), activation);
  };
}

}  // namespace

FusedConvCoverage fused_conv_coverage() {
  return {true,
          {FusedActivation::kRelu, FusedActivation::kClip, FusedActivation::kHardSwish,
           FusedActivation::kSilu}};
}

KILN_GPU_COMPUTE_OPS(conv);
void register_conv_ops(OpTable& t) {
  t.add("Conv", conv_factory(false));
  t.add("ConvTranspose", conv_factory(true));
  t.add(kKilnDomain, kFusedConvOp, fused_conv_factory());
}

}  // namespace kiln::gpu_compute
