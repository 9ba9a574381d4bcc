// Unique on the GPU (shaders/unique.comp), float32, int32 and int64, with or without an axis,
// sorted or in order of first occurrence, as its definition (opdefs/unique.h) lays X out. The
// number of distinct slices decides the outputs' shapes, so the kernel counts on the device,
// reads the count back while it records (which waits for the work recorded so far, and makes
// the node record afresh each run instead of replaying), sizes the outputs and writes them on the
// device. Each slice compares itself with every other, so inputs whose element count and number
// of slices together exceed the shader's loop budget run on the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatches) and the adapter that
// places ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/loop_budget.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/unique.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct UniquePushConstants {
  uint32_t stage = 0, outer = 1, extent = 0, inner = 1, kind = 0, sorted = 1;
  uint32_t distinct = 0, y_count = 0;
};
static_assert(sizeof(UniquePushConstants) <= kMaxPushConstantBytes);

class Unique {
 public:
  explicit Unique(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::unique(), 4, sizeof(UniquePushConstants), kWorkgroup}) {}

  // Stages 0 and 1: each slice's first occurrence, count and output position into `state`, the
  // positions as the inverse indices, the number of distinct slices after them.
  void record_find(VkCommandBuffer cmd, DescriptorArena& arena, UniquePushConstants pc,
                   const Buffer& x, const Buffer& state, const Buffer& inverse) const {
    const Buffer* buffers[] = {&x, &state, &inverse, &state};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    pc.stage = 0;
    const Buffer* state_written[] = {&state};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.extent), state_written);
    pc.stage = 1;
    const Buffer* written[] = {&state, &inverse};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.extent), written);
  }

  // Stages 2 and 3: the first indices and counts of the distinct slices, then Y.
  void record_outputs(VkCommandBuffer cmd, DescriptorArena& arena, UniquePushConstants pc,
                      const Buffer& x, const Buffer& state, const Buffer& indices,
                      const Buffer& counts, const Buffer& y) const {
    pc.stage = 2;
    const Buffer* buffers[] = {&x, &state, &indices, &counts};
    const Buffer* written[] = {&indices, &counts};
    record_dispatch(cmd, pipeline_, arena.bind(pipeline_, buffers),
                    std::as_bytes(std::span(&pc, 1)), groups_for(device_, pipeline_, pc.extent),
                    written);
    if (pc.y_count == 0) return;
    pc.stage = 3;
    const Buffer* copy_buffers[] = {&x, &state, &y, &indices};
    const Buffer* y_written[] = {&y};
    record_dispatch(cmd, pipeline_, arena.bind(pipeline_, copy_buffers),
                    std::as_bytes(std::span(&pc, 1)), groups_for(device_, pipeline_, pc.y_count),
                    y_written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

uint32_t kind_of(DataType t) {
  return t == DataType::Float32 ? 0u : t == DataType::Int32 ? 1u : 2u;
}

RecordFn unique(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_unique_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const UniqueLayout l = resolve_unique(NodeInputs{*node.node, inputs}, attrs);
    const int64_t count = r.shape(0).element_count();
    // Stages 0 and 1 run, per slice, a loop over the slices comparing up to a slice's elements.
    if (static_cast<uint64_t>(count) + static_cast<uint64_t>(l.extent) > kShaderLoopBudget)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "more comparisons than the shader's loop budget");
    const DataType dtype = r.dtype(0);
    UniquePushConstants pc;
    pc.outer = static_cast<uint32_t>(l.outer);
    pc.extent = static_cast<uint32_t>(l.extent);
    pc.inner = static_cast<uint32_t>(l.inner);
    pc.kind = kind_of(dtype);
    pc.sorted = attrs.sorted ? 1 : 0;
    const Shape extent_shape{l.extent};
    const Buffer& inverse = r.output(2, DataType::Int64, extent_shape);
    if (l.extent == 0) {
      r.output(0, dtype, l.source);
      r.output(1, DataType::Int64, extent_shape);
      r.output(3, DataType::Int64, extent_shape);
      return;
    }
    const Buffer& x = r.buffer(0);
    const Tensor state = r.read_back_tensor(DataType::UInt32, Shape{3 * l.extent + 1});
    const Buffer& state_buffer = r.device_buffer(state);
    const Unique& kernel = r.kernel<Unique>();
    kernel.record_find(r.cmd(), r.arena(), pc, x, state_buffer, inverse);
    pc.distinct = download_to_host(state).data<uint32_t>()[3 * l.extent];
    Shape y_shape = l.source;
    y_shape[static_cast<size_t>(l.axis)] = pc.distinct;
    pc.y_count = static_cast<uint32_t>(y_shape.element_count());
    const Shape distinct_shape{static_cast<int64_t>(pc.distinct)};
    const Buffer& y = r.output(0, dtype, y_shape);
    const Buffer& indices = r.output(1, DataType::Int64, distinct_shape);
    const Buffer& counts = r.output(3, DataType::Int64, distinct_shape);
    kernel.record_outputs(r.cmd(), r.arena(), pc, x, state_buffer, indices, counts, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(unique);
void register_unique_ops(OpTable& t) {
  t.add("Unique", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    return unique(q.info);
  });
}

}  // namespace kiln::gpu_compute
