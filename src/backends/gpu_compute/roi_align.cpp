// RoiAlign on the GPU (shaders/roi_align.comp) for float32 maps. The attributes, the checks and
// each region's bilinear samples are the definition's (opdefs/roi_align.h), planned on the host
// from the host-held rois and batch_indices (as the CPU kernel plans them); the shader pools
// every (region, channel, bin). Regions held on the device run the node on the CPU, since their
// samples are planned from their values.
//
// The family in one file: the kernel and its adapter. Nothing else uses the kernel, so it has no
// header.
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
#include "backends/gpu_compute/shaders.h"
#include "core/tensor_impl.h"
#include "opdefs/roi_align.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct RoiAlignPushConstants {
  uint32_t count = 0, channels = 1, bins = 1, plane = 1, max_mode = 0;
};
static_assert(sizeof(RoiAlignPushConstants) <= kMaxPushConstantBytes);

class RoiAlign {
 public:
  explicit RoiAlign(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::roi_align(), 5, sizeof(RoiAlignPushConstants),
                                       kWorkgroup}) {}

  // y = the pooled regions: `pos` and `weights` 4 per sample, `regions` 3 per region (batch
  // index, first sample, samples per bin).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const RoiAlignPushConstants& pc,
              const Buffer& x, const Buffer& pos, const Buffer& weights, const Buffer& regions,
              const Buffer& y) const {
    const Buffer* buffers[] = {&x, &pos, &weights, &regions, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

template <class T>
const Buffer& upload_vector(OpRecorder& r, const std::vector<T>& v) {
  return r.upload(std::as_bytes(std::span(v)));
}

RecordFn roi_align(RoiAlignAttrs attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    for (size_t k : {size_t{1}, size_t{2}}) {
      if (r.has_input(k) && r.input(k).impl()->device)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "rois or batch_indices held on the device: samples are planned on the host");
    }
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k) inputs.push_back(r.input(k));
    const NodeInputs in{*node.node, inputs};
    const RoiAlignRun run = resolve_roi_align(in, attrs);
    const Shape& xs = r.shape(0);
    const int64_t count = run.out_shape.element_count();
    if (count > INT32_MAX || xs.element_count() > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
    const Buffer& y = r.output(0, DataType::Float32, run.out_shape);
    if (count == 0) return;
    const std::vector<RoiPlan> plans = plan_roi_align(in, attrs, xs[2], xs[3]);
    // One sample list for all regions; a zero-weight sample pads an empty list, as buffers
    // cannot be empty.
    std::vector<int32_t> pos;
    std::vector<float> weights;
    std::vector<uint32_t> regions;
    for (size_t k = 0; k < plans.size(); ++k) {
      regions.push_back(static_cast<uint32_t>(run.batch[k]));
      regions.push_back(static_cast<uint32_t>(pos.size() / 4));
      regions.push_back(static_cast<uint32_t>(plans[k].grid_h * plans[k].grid_w));
      for (const RoiSample& s : plans[k].samples) {
        for (int j = 0; j < 4; ++j) {
          pos.push_back(static_cast<int32_t>(s.pos[j]));
          weights.push_back(static_cast<float>(s.w[j]));
        }
      }
    }
    if (pos.size() / 4 > INT32_MAX / 4)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the samples exceed 32-bit indexing");
    if (pos.empty()) {
      pos.assign(4, 0);
      weights.assign(4, 0.0f);
    }
    RoiAlignPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.channels = static_cast<uint32_t>(xs[1]);
    pc.bins = static_cast<uint32_t>(attrs.out_h * attrs.out_w);
    pc.plane = static_cast<uint32_t>(xs[2] * xs[3]);
    pc.max_mode = attrs.max_mode ? 1 : 0;
    const Buffer& x = r.buffer(0);
    const Buffer& pos_buffer = upload_vector(r, pos);
    const Buffer& weight_buffer = upload_vector(r, weights);
    const Buffer& region_buffer = upload_vector(r, regions);
    // Every sample is read once per channel.
    r.add_work(static_cast<uint64_t>(xs[1]) * (pos.size() / 4));
    r.kernel<RoiAlign>().record(r.cmd(), r.arena(), pc, x, pos_buffer, weight_buffer, region_buffer,
                                y);
  };
}

OpFactory roi_align_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const RoiAlignAttrs attrs = parse_roi_align_attrs(q.info);
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 2) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, 2, 1))
      return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() != 4) {
      reason = "an input that is not (N, C, H, W) (the CPU kernel reports it)";
      return nullptr;
    }
    return roi_align(attrs, NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(roi_align);
void register_roi_align_ops(OpTable& t) { t.add("RoiAlign", roi_align_factory()); }

}  // namespace kiln::gpu_compute
