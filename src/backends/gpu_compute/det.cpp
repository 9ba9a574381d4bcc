// Det on the GPU (shaders/det.comp) for float32 stacks of square matrices [*, M, M]: one
// invocation per matrix, eliminating in double as the CPU kernel does, on devices with
// shaderFloat64 (others run the node on the CPU). The shape check is the definition's
// (opdefs/det.h).
//
// The family in one file: the kernel and its adapter. Nothing else uses the kernel, so it has no
// header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/det.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

// Each invocation eliminates a whole matrix: small groups spread few matrices over more cores.
constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct DetPushConstants {
  uint32_t count = 0, n = 0;
};
static_assert(sizeof(DetPushConstants) <= kMaxPushConstantBytes);

// Its own pipeline, created only on a device with shaderFloat64.
class Det {
 public:
  explicit Det(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::det(), 3, sizeof(DetPushConstants), kWorkgroup}) {}

  // y[m] = det(x[m]) with `work` holding count * n * n doubles; nothing for no matrices.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const DetPushConstants& pc,
              const Buffer& x, const Buffer& work, const Buffer& y) const {
    const Buffer* buffers[] = {&x, &work, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers, 2);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn det(NodeRef node) {
  return [node](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const int64_t n = resolve_det_order(*node.node, x);
    const Shape out_shape = det_output_shape(x);
    const int64_t count = out_shape.element_count();
    if (x.element_count() > INT32_MAX || count > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    if (!r.device().info().has_float64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderFloat64");
    const Buffer& in = r.buffer(0);
    const Buffer& work =
        r.scratch(static_cast<size_t>(std::max<int64_t>(x.element_count(), 1)) * sizeof(double));
    const Buffer& y = r.output(0, DataType::Float32, out_shape);
    r.add_work(static_cast<uint64_t>(count) * static_cast<uint64_t>(n * n * n));
    DetPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.n = static_cast<uint32_t>(n);
    r.kernel<Det>().record(r.cmd(), r.arena(), pc, in, work, y);
  };
}

OpFactory det_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return det(NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(det);
void register_det_ops(OpTable& t) { t.add("Det", det_factory()); }

}  // namespace kiln::gpu_compute
