// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on the GPU (shaders/loss.comp): float32
// inputs and weights, int32 or int64 targets, every reduction and ignore_index, and
// SoftmaxCrossEntropyLoss's optional log_prob output. Their attributes and the [N, C, D] view
// come from their definition (opdefs/softmax.h).
//
// The family in one file: the kernel (the pipeline and its dispatches) and the adapter that
// places ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// A power of two: the reduction pass halves it.
constexpr uint32_t kWorkgroup = 256;

enum class LossPass : uint32_t { LogProb, Loss, Reduce };

// Mirrors the shader's push-constant block.
struct LossPushConstants {
  uint32_t pass = 0;
  uint32_t samples = 0, classes = 0, spatial = 1;
  uint32_t target_words = 1;
  uint32_t has_weight = 0, has_ignore = 0;
  uint32_t ignore_lo = 0, ignore_hi = 0;
  uint32_t reduction = 0;
};
static_assert(sizeof(LossPushConstants) <= kMaxPushConstantBytes);

class Loss {
 public:
  explicit Loss(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::loss(), 4, sizeof(LossPushConstants), kWorkgroup}) {
  }

  // One pass over `x` (scores for LogProb, log-probabilities otherwise) into `out`; `weight` is
  // any bound buffer when pc.has_weight is 0.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const LossPushConstants& pc,
              const Buffer& x, const Buffer& target, const Buffer& weight,
              const Buffer& out) const {
    const Buffer* buffers[] = {&x, &target, &weight, &out};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&out};
    const uint64_t invocations =
        pc.pass == static_cast<uint32_t>(LossPass::Reduce) ? kWorkgroup : pc.samples;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, invocations), written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// Whether every host-held target is a class in [0, classes) or the ignore_index: the shader
// cannot report a bad one, the CPU kernel does.
template <class Index>
bool targets_valid(const Tensor& target, int64_t classes, const LossAttrs& a) {
  const Index* t = target.data<Index>();
  for (int64_t s = 0; s < target.element_count(); ++s) {
    const auto cls = static_cast<int64_t>(t[s]);
    if (a.has_ignore_index && cls == a.ignore_index) continue;
    if (cls < 0 || cls >= classes) return false;
  }
  return true;
}

LossPushConstants push_constants(const LossGeometry& g, DataType target_type, const LossAttrs& a,
                                 bool has_weight) {
  LossPushConstants pc;
  pc.samples = static_cast<uint32_t>(g.samples());
  pc.classes = static_cast<uint32_t>(g.classes);
  pc.spatial = static_cast<uint32_t>(g.spatial);
  pc.target_words = target_type == DataType::Int64 ? 2 : 1;
  pc.has_weight = has_weight ? 1 : 0;
  // An int32 target never equals an ignore_index beyond int32.
  const bool ignore_fits = target_type == DataType::Int64 ||
                           (a.ignore_index >= INT32_MIN && a.ignore_index <= INT32_MAX);
  pc.has_ignore = a.has_ignore_index && ignore_fits ? 1 : 0;
  const auto bits = static_cast<uint64_t>(a.ignore_index);
  pc.ignore_lo = static_cast<uint32_t>(bits);
  pc.ignore_hi = static_cast<uint32_t>(bits >> 32);
  pc.reduction = static_cast<uint32_t>(a.reduction);
  return pc;
}

// The [N, C, D] view the kernel takes, or nullopt with `why`: shapes the definition rejects
// (the CPU kernel reports them), an empty input, or one beyond 32-bit indexing.
std::optional<LossGeometry> covered_geometry(const Shape& x, const Shape& target,
                                             const Shape* weight, std::string& why) {
  const std::optional<LossGeometry> g = loss_geometry(x, target, weight, why);
  if (!g) return std::nullopt;
  const int64_t count = g->samples() * g->classes;
  if (count == 0 || count > INT32_MAX) {
    why = "an empty input or one beyond 32-bit indexing";
    return std::nullopt;
  }
  return g;
}

RecordFn loss(LossAttrs attrs, bool softmax) {
  return [=](OpRecorder& r) {
    const bool has_weight = r.has_input(2);
    std::string why;
    const std::optional<LossGeometry> g =
        covered_geometry(r.shape(0), r.shape(1), has_weight ? &r.shape(2) : nullptr, why);
    if (!g) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, why);
    const int64_t count = g->samples() * g->classes;
    const Tensor& target = r.input(1);
    if (!target.impl()->device) {
      const bool valid = target.dtype() == DataType::Int64
                             ? targets_valid<int64_t>(target, g->classes, attrs)
                             : targets_valid<int32_t>(target, g->classes, attrs);
      if (!valid)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "a target is out of range; the CPU kernel reports it");
    }
    LossPushConstants pc = push_constants(*g, r.dtype(1), attrs, has_weight);
    const Loss& kernel = r.kernel<Loss>();
    const Buffer& x = r.buffer(0);
    const Buffer& targets = r.buffer(1);
    const Buffer& weight = has_weight ? r.buffer(2) : x;
    const Buffer* log_prob = &x;
    if (softmax) {
      // The log-probabilities: SoftmaxCrossEntropyLoss's second output when the node has one.
      log_prob = r.num_outputs() > 1 ? &r.output(1, DataType::Float32, r.shape(0))
                                     : &r.scratch(static_cast<size_t>(count) * sizeof(float));
      pc.pass = static_cast<uint32_t>(LossPass::LogProb);
      kernel.record(r.cmd(), r.arena(), pc, x, targets, weight, *log_prob);
    }
    const bool per_sample = attrs.reduction == LossReduction::None;
    const Buffer& out = r.output(0, DataType::Float32, per_sample ? r.shape(1) : Shape{});
    pc.pass = static_cast<uint32_t>(per_sample ? LossPass::Loss : LossPass::Reduce);
    kernel.record(r.cmd(), r.arena(), pc, *log_prob, targets, weight, out);
  };
}

OpFactory loss_factory(bool softmax) {
  return [softmax](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, 1, 1) ||
        !inputs_are(q, {DataType::Float32}, reason, 2, 1))
      return nullptr;
    // With the shapes fixed at load time, the placement tells now whether the kernel covers them.
    const Shape *x = static_input_shape(q, 0), *target = static_input_shape(q, 1),
                *weight = static_input_shape(q, 2);
    if (x && target && (weight || !q.info.has_input(2)) &&
        !covered_geometry(*x, *target, weight, reason))
      return nullptr;
    return loss(parse_loss_attrs(q.info), softmax);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(loss);
void register_loss_ops(OpTable& t) {
  t.add("NegativeLogLikelihoodLoss", loss_factory(false));
  t.add("SoftmaxCrossEntropyLoss", loss_factory(true));
}

}  // namespace kiln::gpu_compute
