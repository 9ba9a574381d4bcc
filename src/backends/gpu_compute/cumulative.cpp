// CumSum and CumProd on the GPU (shaders/cumulative.comp): float32 and int32 tensors along the
// host-held axis, and float64 ones (shaders/cumulative_f64.comp) where the device has
// shaderFloat64, exclusive and reverse as their definition (opdefs/cumulative.h) parses them.
// An invocation per line walks the line in the CPU's order, so results match it exactly.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <span>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/cumulative.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct CumulativePushConstants {
  uint32_t lines = 0, n = 1, inner = 1, product = 0, is_float = 1, exclusive = 0, reverse = 0;
};
static_assert(sizeof(CumulativePushConstants) <= kMaxPushConstantBytes);

// The float32 and int32 walk (shaders/cumulative.comp); CumulativeF64 is the same in double.
class Cumulative {
 public:
  explicit Cumulative(Device& device) : Cumulative(device, shaders::cumulative()) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const CumulativePushConstants& pc,
              const Buffer& x, const Buffer& y) const {
    if (pc.lines == 0 || pc.n == 0) return;
    const Buffer* buffers[] = {&x, &y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&y};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.lines), written);
  }

 protected:
  Cumulative(Device& device, std::span<const uint32_t> shader)
      : device_(device),
        pipeline_(device, PipelineDesc{shader, 2, sizeof(CumulativePushConstants), kWorkgroup}) {}

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// Its own pipeline, created only on a device with shaderFloat64.
class CumulativeF64 : public Cumulative {
 public:
  explicit CumulativeF64(Device& device) : Cumulative(device, shaders::cumulative_f64()) {}
};

// ---- The adapter -----------------------------------------------------------------------------

// The axis from the host-held scalar input 1, wrapped; nullopt when it is not a host int32/int64
// value in [-rank, rank) (the CPU kernel reports it).
std::optional<int64_t> axis_of(const OpRecorder& r, int64_t rank) {
  const Tensor& t = r.input(1);
  if (t.impl()->device || t.element_count() != 1 || t.rank() > 1) return std::nullopt;
  int64_t axis = 0;
  if (t.dtype() == DataType::Int64) {
    axis = t.data<int64_t>()[0];
  } else if (t.dtype() == DataType::Int32) {
    axis = t.data<int32_t>()[0];
  } else {
    return std::nullopt;
  }
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

RecordFn cumulative(CumulativeAttrs attrs, bool product) {
  return [attrs, product](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const auto rank = static_cast<int64_t>(x.size());
    const std::optional<int64_t> axis = rank > 0 ? axis_of(r, rank) : std::nullopt;
    if (!axis)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "an axis the GPU kernel does not take; the CPU kernel reports it");
    if (x.element_count() > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < *axis; ++d) outer *= x[d];
    for (int64_t d = *axis + 1; d < rank; ++d) inner *= x[d];
    CumulativePushConstants pc;
    pc.lines = static_cast<uint32_t>(outer * inner);
    pc.n = static_cast<uint32_t>(x[*axis]);
    pc.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    pc.product = product ? 1 : 0;
    pc.is_float = r.dtype(0) == DataType::Float32 ? 1 : 0;
    pc.exclusive = attrs.exclusive ? 1 : 0;
    pc.reverse = attrs.reverse ? 1 : 0;
    const bool wide = r.dtype(0) == DataType::Float64;
    if (wide && !r.device().info().has_float64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderFloat64");
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), x);
    const Cumulative& kernel = wide ? r.kernel<CumulativeF64>() : r.kernel<Cumulative>();
    kernel.record(r.cmd(), r.arena(), pc, in, out);
  };
}

OpFactory cumulative_factory(bool product) {
  return [product](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Float64}, reason, 0, 1))
      return nullptr;
    return cumulative(parse_cumulative_attrs(q.info), product);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(cumulative);
void register_cumulative_ops(OpTable& t) {
  t.add("CumSum", cumulative_factory(false));
  t.add("CumProd", cumulative_factory(true));
}

}  // namespace kiln::gpu_compute
