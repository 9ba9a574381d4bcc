// NonMaxSuppression on the GPU (shaders/non_max_suppression.comp): float32 boxes and scores, the
// greedy selection of each (batch, class) in one invocation with the overlaps in float64 as the
// CPU computes them (needs shaderFloat64). The number of kept boxes decides the output's shape:
// the kernel selects on the device, reads the total back while it records (the node then records
// afresh each run instead of replaying), sizes the output and writes the rows. The selection's
// loops grow with the square of the boxes per class (about 180 to 250 fit, by the count kept):
// beyond the shader's loop budget (loop_budget.h) a run goes to the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatches) and the adapter that
// places ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
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
#include "core/tensor_impl.h"
#include "opdefs/non_max_suppression.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block (std430: the doubles at offsets 32 and 40).
struct NmsPushConstants {
  uint32_t stage = 0, boxes_per_batch = 0, classes = 1, pairs = 0, cap = 0, center_point = 0;
  uint32_t has_score_threshold = 0, total = 0;
  double score_threshold = 0.0, iou_threshold = 0.0;
};
static_assert(sizeof(NmsPushConstants) == 48 && offsetof(NmsPushConstants, score_threshold) == 32);

class NonMaxSuppression {
 public:
  explicit NonMaxSuppression(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::non_max_suppression(), 5, sizeof(NmsPushConstants),
                                       kWorkgroup}) {}

  // Stages 0 and 1: the kept boxes of each pair into `kept`, each pair's first row into `counts`
  // and the total after them.
  void record_select(VkCommandBuffer cmd, DescriptorArena& arena, NmsPushConstants pc,
                     const Buffer& boxes, const Buffer& scores, const Buffer& kept,
                     const Buffer& counts) const {
    const Buffer* buffers[] = {&boxes, &scores, &kept, &counts, &counts};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* select_written[] = {&kept, &counts};
    pc.stage = 0;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.pairs), select_written);
    const Buffer* scan_written[] = {&counts};
    pc.stage = 1;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, 1), scan_written);
  }

  // Stage 2: the rows (batch, class, box) into y ([pc.total, 3] int64).
  void record_rows(VkCommandBuffer cmd, DescriptorArena& arena, NmsPushConstants pc,
                   const Buffer& boxes, const Buffer& scores, const Buffer& kept,
                   const Buffer& counts, const Buffer& y) const {
    pc.stage = 2;
    const Buffer* buffers[] = {&boxes, &scores, &kept, &counts, &y};
    const Buffer* written[] = {&y};
    record_dispatch(cmd, pipeline_, arena.bind(pipeline_, buffers),
                    std::as_bytes(std::span(&pc, 1)), groups_for(device_, pipeline_, pc.pairs),
                    written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn non_max_suppression(bool center_point, NodeRef node) {
  return [center_point, node](OpRecorder& r) {
    if (!r.device().info().has_float64)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderFloat64");
    const std::vector<Tensor> inputs = run_inputs(r);
    for (size_t k = 2; k < inputs.size(); ++k) {
      if (inputs[k].defined() && inputs[k].impl()->device)
        throw RunOnCpu(RunTimeCause::InputValues, "a threshold or count computed on the device");
    }
    const NmsParams q = resolve_nms(NodeInputs{*node.node, inputs});
    const int64_t pairs = q.batches * q.classes;
    const int64_t cap = std::min(q.max_per_class, q.boxes);
    // Stage 0 of a pair: the flags, then per visited box a pass over the boxes and the kept.
    const uint64_t loops =
        static_cast<uint64_t>(q.boxes) * static_cast<uint64_t>(q.boxes + cap + 2);
    if (loops > kShaderLoopBudget || static_cast<uint64_t>(pairs) > kShaderLoopBudget)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "a selection beyond the shader's loop budget");
    if (pairs * (cap + q.boxes) > INT32_MAX || q.batches * q.boxes * 4 > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "beyond the kernel's 32-bit indexing");

    NmsPushConstants pc;
    pc.boxes_per_batch = static_cast<uint32_t>(q.boxes);
    pc.classes = static_cast<uint32_t>(std::max<int64_t>(q.classes, 1));
    pc.pairs = static_cast<uint32_t>(pairs);
    pc.cap = static_cast<uint32_t>(cap);
    pc.center_point = center_point ? 1 : 0;
    pc.has_score_threshold = q.has_score_threshold ? 1 : 0;
    pc.score_threshold = q.score_threshold;
    pc.iou_threshold = q.iou_threshold;

    const Buffer& boxes = r.buffer(0);
    const Buffer& scores = r.buffer(1);
    const Buffer& kept =
        r.scratch(static_cast<size_t>(std::max<int64_t>(pairs * (cap + q.boxes), 1)) * 4);
    const Tensor counts = r.read_back_tensor(DataType::UInt32, Shape{pairs + 1});
    const Buffer& counts_buffer = r.device_buffer(counts);
    const NonMaxSuppression& kernel = r.kernel<NonMaxSuppression>();
    kernel.record_select(r.cmd(), r.arena(), pc, boxes, scores, kept, counts_buffer);
    pc.total = download_to_host(counts).data<uint32_t>()[pairs];
    const Buffer& y = r.output(0, DataType::Int64, Shape{static_cast<int64_t>(pc.total), 3});
    if (pc.total > 0)
      kernel.record_rows(r.cmd(), r.arena(), pc, boxes, scores, kept, counts_buffer, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(non_max_suppression);
void register_non_max_suppression_ops(OpTable& t) {
  t.add("NonMaxSuppression", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 2)) return nullptr;
    return non_max_suppression(parse_center_point_box(q.info), NodeRef(q.info));
  });
}

}  // namespace kiln::gpu_compute
