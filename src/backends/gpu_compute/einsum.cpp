// Einsum on the GPU (shaders/einsum.glsl): one or two float32 operands, and float64 ones where
// the device has shaderFloat64, up to 8 labels, contracted as the definition (opdefs/einsum.h)
// resolves the equation for the CPU kernel too: diagonals, ellipses, broadcasting, implicit
// output.
//
// The family in one file: the kernel (the pipelines and their dispatch) and the adapter that
// places ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/einsum.h"
#include "opdefs/node_inputs.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr int kMaxLabels = 8;
constexpr size_t kMaxOperands = 2;
// Combinations of summed labels one invocation loops over.
constexpr int64_t kMaxSumCount = int64_t{1} << 24;

// Mirrors the shader's push-constant block.
struct EinsumPushConstants {
  uint32_t count = 0, operands = 1, num_out = 0, num_labels = 0, sum_count = 0;
  uint32_t sizes[kMaxLabels] = {};
  uint32_t stride_a[kMaxLabels] = {};
  uint32_t stride_b[kMaxLabels] = {};
};
static_assert(sizeof(EinsumPushConstants) <= kMaxPushConstantBytes);

// The float32 contraction; EinsumF64 is the same in double.
class Einsum {
 public:
  explicit Einsum(Device& device) : Einsum(device, shaders::einsum()) {}

  // y = the contraction of a (and b; a again for one operand).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const EinsumPushConstants& pc,
              const Buffer& a, const Buffer& b, const Buffer& y) const {
    const Buffer* buffers[] = {&a, &b, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 protected:
  Einsum(Device& device, std::span<const uint32_t> shader)
      : device_(device),
        pipeline_(device, PipelineDesc{shader, 3, sizeof(EinsumPushConstants), kWorkgroup}) {}

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Its own pipeline, created only on a device with shaderFloat64.
class EinsumF64 : public Einsum {
 public:
  explicit EinsumF64(Device& device) : Einsum(device, shaders::einsum_f64()) {}
};

// ---- The adapter -----------------------------------------------------------------------------

// The push constants for a resolved problem; RunOnCpu where it is beyond the kernel.
EinsumPushConstants push_constants(const EinsumProblem& p, size_t operands,
                                   std::span<const Tensor* const> inputs) {
  if (p.num_labels > kMaxLabels)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more than 8 distinct labels");
  if (p.sum_count > kMaxSumCount)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "a contraction beyond the shader's loop budget");
  if (p.out_count > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the output exceeds 32-bit indexing");
  for (const Tensor* t : inputs) {
    if (t->element_count() > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "an operand exceeds 32-bit indexing");
  }
  EinsumPushConstants pc;
  pc.count = static_cast<uint32_t>(p.out_count);
  pc.operands = static_cast<uint32_t>(operands);
  pc.num_out = static_cast<uint32_t>(p.num_out);
  pc.num_labels = static_cast<uint32_t>(p.num_labels);
  pc.sum_count = static_cast<uint32_t>(p.sum_count);
  const auto labels = static_cast<size_t>(p.num_labels);
  for (size_t k = 0; k < labels; ++k) {
    pc.sizes[k] = static_cast<uint32_t>(p.sizes[k]);
    pc.stride_a[k] = static_cast<uint32_t>(p.stride[k]);
    pc.stride_b[k] = operands == 2 ? static_cast<uint32_t>(p.stride[labels + k]) : 0;
  }
  return pc;
}

RecordFn einsum(const NodeInfo& info, std::shared_ptr<const EinsumEquation> eq) {
  return [node = NodeRef(info), eq](OpRecorder& r) {
    const size_t operands = r.num_inputs();
    const DataType dtype = r.dtype(0);
    for (size_t k = 0; k < operands; ++k) {
      if (!r.has_input(k) || r.dtype(k) != dtype)
        throw RunOnCpu(RunTimeCause::InputKind, "operands of differing types; the CPU reports it");
    }
    const bool wide = dtype == DataType::Float64;
    if (wide && !r.device().info().has_float64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderFloat64");
    std::vector<const Tensor*> inputs;
    for (size_t k = 0; k < operands; ++k) inputs.push_back(&r.input_for_shape_rule(k));
    EinsumProblem problem;
    try {
      resolve_einsum(*eq, inputs, problem);
    } catch (const Error& e) {
      fail_at(*node.node, e.what());
    }
    const EinsumPushConstants pc = push_constants(problem, operands, inputs);
    const Buffer& a = r.buffer(0);
    const Buffer& b = operands == 2 ? r.buffer(1) : a;
    const Buffer& y = r.output(0, dtype, problem.out_shape);
    r.add_work(static_cast<uint64_t>(problem.out_count) * static_cast<uint64_t>(problem.sum_count));
    const Einsum& kernel = wide ? r.kernel<EinsumF64>() : r.kernel<Einsum>();
    kernel.record(r.cmd(), r.arena(), pc, a, b, y);
  };
}

OpFactory einsum_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const size_t operands = q.info.num_inputs();
    if (operands == 0 || operands > kMaxOperands) {
      reason = "more than two operands";
      return nullptr;
    }
    if (!inputs_are(q, {DataType::Float32, DataType::Float64}, reason)) return nullptr;
    std::shared_ptr<const EinsumEquation> equation;
    if (!attributes_accepted(
            [&] {
              equation = std::make_shared<const EinsumEquation>(
                  parse_einsum(q.info.attr_string("equation", ""), operands));
            },
            reason))
      return nullptr;
    return einsum(q.info, std::move(equation));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(einsum);
void register_einsum_ops(OpTable& t) { t.add("Einsum", einsum_factory()); }

}  // namespace kiln::gpu_compute
