// Trilu on the GPU (shaders/trilu.comp) for float32, int32 and int64 tensors: the upper or lower
// triangle of each matrix in the last two dimensions, shifted by the host-held k, as the
// definition (opdefs/trilu.h) resolves them.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/trilu.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct TriluPushConstants {
  uint32_t count = 0, words = 1, rows = 1, cols = 1, upper = 1;
  int32_t k = 0;
};
static_assert(sizeof(TriluPushConstants) <= kMaxPushConstantBytes);

class Trilu {
 public:
  explicit Trilu(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::trilu(), 2, sizeof(TriluPushConstants), kWorkgroup}) {}

  // out = the kept triangle of x; nothing for an empty tensor.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const TriluPushConstants& pc,
              const Buffer& x, const Buffer& out) const {
    const Buffer* buffers[] = {&x, &out};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The definition's plan (opdefs/trilu.h) for this run: its kiln::Error for a bad input is the
// run's error. A k the device holds runs on the CPU.
TriluPlan trilu_plan(OpRecorder& r, const NodeRef& node) {
  if (r.has_input(1) && r.input(1).impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues, "k is not a host-held value");
  std::vector<Tensor> inputs = {r.input(0)};
  if (r.has_input(1)) inputs.push_back(r.input(1));
  return resolve_trilu(NodeInputs{*node.node, inputs});
}

RecordFn trilu(const TriluAttrs& attrs, const NodeRef& node) {
  return [attrs, node](OpRecorder& r) {
    const TriluPlan plan = trilu_plan(r, node);
    const Shape& shape = r.shape(0);
    const uint32_t words = element_words(r.dtype(0));
    const uint64_t count = static_cast<uint64_t>(shape.element_count());
    if (count * words > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    TriluPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.words = words;
    pc.rows = static_cast<uint32_t>(std::max<int64_t>(plan.rows, 1));
    pc.cols = static_cast<uint32_t>(std::max<int64_t>(plan.cols, 1));
    pc.upper = attrs.upper ? 1 : 0;
    pc.k = static_cast<int32_t>(plan.k);
    const Buffer& x = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), shape);
    r.kernel<Trilu>().record(r.cmd(), r.arena(), pc, x, out);
  };
}

OpFactory trilu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() < 2) {
      reason = "an input of rank below 2";
      return nullptr;
    }
    return trilu(parse_trilu_attrs(q.info), NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(trilu);
void register_trilu_ops(OpTable& t) { t.add("Trilu", trilu_factory()); }

}  // namespace kiln::gpu_compute
