// CausalConvWithState on the GPU (shaders/causal_conv_with_state.comp) for float32, float16 and
// bfloat16 (converted to float32 on the way in and out, as the CPU computes them in float32):
// the output and the present state in one dispatch. Sizes and attributes come from the op's
// definition (opdefs/causal_conv_with_state.h).
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/attention.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/causal_conv_with_state.h"

namespace kiln::gpu_compute {
namespace {

namespace cc = causal_conv;

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct CausalConvPushConstants {
  uint32_t count = 0, channels = 0, len = 0, kernel = 0;
  uint32_t has_bias = 0, has_past = 0, silu = 0, write_present = 0;
};
static_assert(sizeof(CausalConvPushConstants) <= kMaxPushConstantBytes);

// The operands; absent optional ones may be any buffer (they are not read or written).
struct CausalConvBuffers {
  const Buffer *input, *weight, *bias, *past, *output, *present;
};

class CausalConv {
 public:
  explicit CausalConv(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::causal_conv_with_state(), 6,
                                       sizeof(CausalConvPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const CausalConvPushConstants& pc,
              const CausalConvBuffers& b) const {
    const Buffer* buffers[] = {b.input, b.weight, b.bias, b.past, b.output, b.present};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers, 2);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn causal_conv(cc::Attributes attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const cc::Dims d = cc::check_inputs({*node.node, inputs});
    const uint64_t count =
        static_cast<uint64_t>(d.batch * d.channels) * static_cast<uint64_t>(d.length + d.carry());
    if (count > INT32_MAX || d.channels * d.kernel > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensors exceed 32-bit indexing");
    const DataType dtype = r.dtype(cc::kInput);
    Float32Io io(r);
    CausalConvBuffers b{};
    b.input = &io.input(cc::kInput);
    b.weight = &io.input(cc::kWeight);
    b.bias = r.has_input(cc::kBias) ? &io.input(cc::kBias) : b.weight;
    b.past = r.has_input(cc::kPastState) ? &io.input(cc::kPastState) : b.weight;
    b.output = &io.output(0, dtype, r.shape(cc::kInput));
    const bool write_present = r.num_outputs() > 1;
    b.present = write_present ? &io.output(1, dtype, d.state_shape()) : b.output;
    CausalConvPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.channels = static_cast<uint32_t>(d.channels);
    pc.len = static_cast<uint32_t>(d.length);
    pc.kernel = static_cast<uint32_t>(d.kernel);
    pc.has_bias = r.has_input(cc::kBias) ? 1 : 0;
    pc.has_past = r.has_input(cc::kPastState) ? 1 : 0;
    pc.silu = attrs.silu ? 1 : 0;
    pc.write_present = write_present ? 1 : 0;
    r.add_work(static_cast<uint64_t>(d.batch * d.channels * d.length * d.kernel));
    r.kernel<CausalConv>().record(r.cmd(), r.arena(), pc, b);
    io.finish();
  };
}

OpFactory causal_conv_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Float16, DataType::BFloat16}, reason))
      return nullptr;
    cc::Attributes attrs;
    if (!attributes_accepted([&] { attrs = cc::parse_attributes(q.info); }, reason)) return nullptr;
    return causal_conv(attrs, NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(causal_conv_with_state);
void register_causal_conv_with_state_ops(OpTable& t) {
  t.add("CausalConvWithState", causal_conv_factory());
}

}  // namespace kiln::gpu_compute
