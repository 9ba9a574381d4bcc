// MaxUnpool on the GPU (shaders/max_unpool.comp) for 4- and 8-byte elements: its attributes and
// shapes are the definition's (opdefs/max_unpool.h); the shader claims each output position for
// the last input element naming it, then writes every output element, so duplicate indices give
// the CPU kernel's result.
//
// The family in one file: the kernel and its adapter. Nothing else uses the kernel, so it has no
// header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/fill.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/broadcast.h"
#include "opdefs/max_unpool.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;
constexpr size_t kMaxRank = 6;

// Mirrors the shader's push-constant block.
struct MaxUnpoolPushConstants {
  uint32_t mode = 0, count = 0, total = 0, words = 1, rank = 0;
  uint32_t unpooled[kMaxRank] = {};
  uint32_t out_stride[kMaxRank] = {};
};
static_assert(sizeof(MaxUnpoolPushConstants) <= kMaxPushConstantBytes);

class MaxUnpool {
 public:
  explicit MaxUnpool(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::max_unpool(), 4, sizeof(MaxUnpoolPushConstants),
                                       kWorkgroup}) {}

  // y = x's elements at their indices' positions, zero elsewhere; `winner` holds an int32 per
  // output element, -1 on entry. `pc` without mode and count.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, MaxUnpoolPushConstants pc,
              uint32_t in_count, uint32_t out_count, const Buffer& x, const Buffer& indices,
              const Buffer& winner, const Buffer& y) const {
    const Buffer* buffers[] = {&x, &indices, &winner, &y};
    pc.mode = 0;
    pc.count = in_count;
    record_per_element(cmd, device_, arena, pipeline_, pc, in_count, std::span(buffers), 2);
    pc.mode = 1;
    pc.count = out_count;
    record_per_element(cmd, device_, arena, pipeline_, pc, out_count, std::span(buffers), 1);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// Whether every host-held index lies in [0, total).
bool indices_in_range(const Tensor& indices, int64_t total) {
  const int64_t* v = indices.data<int64_t>();
  for (int64_t i = 0; i < indices.element_count(); ++i) {
    if (v[i] < 0 || v[i] >= total) return false;
  }
  return true;
}

RecordFn max_unpool(MaxUnpoolAttrs attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const MaxUnpoolShapes s = resolve_max_unpool(NodeInputs{*node.node, inputs}, attrs);
    const DataType dtype = r.dtype(0);
    const uint32_t words = element_words(dtype);
    const int64_t in_count = r.shape(0).element_count();
    const int64_t out_count = s.output.element_count();
    if (s.output.size() > kMaxRank)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "a rank above 6");
    if (out_count * words > INT32_MAX || in_count * 2 > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
    const Tensor& indices = r.input(1);
    if (!indices.impl()->device && !indices_in_range(indices, s.unpooled.element_count()))
      throw RunOnCpu(RunTimeCause::InputValues,
                     "an index is outside the unpooled shape; the CPU kernel reports it");
    MaxUnpoolPushConstants pc;
    pc.total = static_cast<uint32_t>(s.unpooled.element_count());
    pc.words = words;
    if (s.output != s.unpooled) {
      const Shape strides = strides_of(s.output);
      pc.rank = static_cast<uint32_t>(s.output.size());
      for (size_t d = 0; d < s.output.size(); ++d) {
        pc.unpooled[d] = static_cast<uint32_t>(s.unpooled[d]);
        pc.out_stride[d] = static_cast<uint32_t>(strides[d]);
      }
    }
    const Buffer& y = r.output(0, dtype, s.output);
    if (out_count == 0) return;
    const Buffer& x = r.buffer(0);
    const Buffer& idx = r.buffer(1);
    const Buffer& winner = r.scratch(static_cast<size_t>(out_count) * sizeof(int32_t));
    r.kernel<Fill>().record(r.cmd(), r.arena(), Tensor::scalar<int32_t>(-1), winner,
                            static_cast<uint64_t>(out_count));
    r.kernel<MaxUnpool>().record(r.cmd(), r.arena(), pc, static_cast<uint32_t>(in_count),
                                 static_cast<uint32_t>(out_count), x, idx, winner, y);
  };
}

OpFactory max_unpool_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const MaxUnpoolAttrs attrs = parse_max_unpool_attrs(q.info);
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64, DataType::Float64},
                    reason, 0, 1) ||
        !inputs_are(q, {DataType::Int64}, reason, 1, 1))
      return nullptr;
    if (q.input_on_cpu.size() > 2 && !q.input_on_cpu[2] && !q.info.constant_input(2)) {
      reason = "output_shape is not a host value";
      return nullptr;
    }
    return max_unpool(attrs, NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(max_unpool);
void register_max_unpool_ops(OpTable& t) { t.add("MaxUnpool", max_unpool_factory()); }

}  // namespace kiln::gpu_compute
