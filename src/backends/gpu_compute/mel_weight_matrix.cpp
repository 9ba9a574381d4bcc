// MelWeightMatrix on the GPU (shaders/mel_weight_matrix.comp) with a float32 output: the filters'
// edges come from the definition (opdefs/mel_weight_matrix.h) on the host, since its five inputs
// are host values, and the shader writes the matrix.
//
// The family in one file: the kernel and its adapter. Nothing else uses the kernel, so it has no
// header.
#include <vulkan/vulkan.h>

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
#include "opdefs/mel_weight_matrix.h"
#include "opdefs/signal.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct MelPushConstants {
  uint32_t count = 0, mel_bins = 1;
};
static_assert(sizeof(MelPushConstants) <= kMaxPushConstantBytes);

class MelWeightMatrix {
 public:
  explicit MelWeightMatrix(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::mel_weight_matrix(), 2, sizeof(MelPushConstants),
                                       kWorkgroup}) {}

  // y = the filters of the int32 `edges` (mel_bins + 2 of them).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const MelPushConstants& pc,
              const Buffer& edges, const Buffer& y) const {
    const Buffer* buffers[] = {&edges, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn mel_weight_matrix(NodeRef node) {
  return [node](OpRecorder& r) {
    std::vector<Tensor> inputs;
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      const Tensor& t = r.input(k);
      if (t.defined() && t.impl()->device)
        throw RunOnCpu(RunTimeCause::InputValues, "an input that is not a host value");
      inputs.push_back(t);
    }
    const MelFilters f = resolve_mel_filters(NodeInputs{*node.node, inputs});
    const int64_t count = f.spectrum_bins * f.mel_bins;
    if (count > INT32_MAX || f.mel_bins + 2 > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the matrix exceeds 32-bit indexing");
    // Edges are below spectrum_bins <= count, so they fit in int32.
    std::vector<int32_t> edges(f.edges.begin(), f.edges.end());
    const Buffer& edge_buffer = r.upload(std::as_bytes(std::span(edges)));
    const Buffer& y = r.output(0, DataType::Float32, Shape{f.spectrum_bins, f.mel_bins});
    MelPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.mel_bins = static_cast<uint32_t>(f.mel_bins);
    r.kernel<MelWeightMatrix>().record(r.cmd(), r.arena(), pc, edge_buffer, y);
  };
}

OpFactory mel_weight_matrix_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DataType out_type = output_datatype_attr(q.info);
    if (out_type != DataType::Float32) {
      reason = "no " + std::string(dtype_name(out_type)) + " kernel (output)";
      return nullptr;
    }
    for (size_t k = 0; k < q.input_on_cpu.size(); ++k) {
      if (!q.input_on_cpu[k] && !q.info.constant_input(k)) {
        reason = "an input that is not a host value";
        return nullptr;
      }
    }
    return mel_weight_matrix(NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(mel_weight_matrix);
void register_mel_weight_matrix_ops(OpTable& t) {
  t.add("MelWeightMatrix", mel_weight_matrix_factory());
}

}  // namespace kiln::gpu_compute
