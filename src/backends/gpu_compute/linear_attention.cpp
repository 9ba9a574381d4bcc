// LinearAttention on the GPU (shaders/linear_attention.comp) for float32, float16 and bfloat16
// (converted to float32 on the way in and out, as the CPU computes them in float32): every
// update rule, grouped-query heads, per-feature or per-head decay, per-head or shared beta, past
// and present state. Sizes and attributes come from the op's definition
// (opdefs/linear_attention.h).
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
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
#include "opdefs/linear_attention.h"

namespace kiln::gpu_compute {
namespace {

namespace la = linear_attention;

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct LinearAttentionPushConstants {
  uint32_t batch = 0, seq = 0, q_heads = 0, kv_heads = 0, key_size = 0, value_size = 0;
  uint32_t decay_width = 0, beta_heads = 0, has_past = 0;
  float scale = 1.0f;
};
static_assert(sizeof(LinearAttentionPushConstants) <= kMaxPushConstantBytes);

// The operands; absent optional ones may be any buffer (they are not read).
struct LinearAttentionBuffers {
  const Buffer *q, *k, *v, *past, *decay, *beta, *output, *state;
};

class LinearAttention {
 public:
  explicit LinearAttention(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::linear_attention(), 8,
                                       sizeof(LinearAttentionPushConstants), kWorkgroup}) {}

  // One invocation per column of every (batch, kv head) state.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const LinearAttentionPushConstants& pc,
              const LinearAttentionBuffers& b) const {
    const Buffer* buffers[] = {b.q, b.k, b.v, b.past, b.decay, b.beta, b.output, b.state};
    const uint64_t columns = static_cast<uint64_t>(pc.batch) * pc.kv_heads * pc.value_size;
    record_per_element(cmd, device_, arena, pipeline_, pc, columns, buffers, 2);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn linear_attention(la::Attributes attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const la::Dims d = la::check_inputs({*node.node, inputs}, attrs);
    const int64_t biggest =
        std::max({r.shape(la::kQuery).element_count(), r.shape(la::kValue).element_count(),
                  d.output_shape().element_count(), d.state_shape().element_count()});
    if (biggest > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensors exceed 32-bit indexing");
    const DataType dtype = r.dtype(la::kQuery);
    Float32Io io(r);
    LinearAttentionBuffers b{};
    b.q = &io.input(la::kQuery);
    b.k = &io.input(la::kKey);
    b.v = &io.input(la::kValue);
    b.past = r.has_input(la::kPastState) ? &io.input(la::kPastState) : b.q;
    b.decay = la::uses_decay(attrs.rule) ? &io.input(la::kDecay) : b.q;
    b.beta = la::uses_beta(attrs.rule) ? &io.input(la::kBeta) : b.q;
    b.output = &io.output(0, dtype, d.output_shape());
    b.state = r.num_outputs() > 1
                  ? &io.output(1, dtype, d.state_shape())
                  : &io.scratch(static_cast<uint64_t>(d.state_shape().element_count()));
    LinearAttentionPushConstants pc;
    pc.batch = static_cast<uint32_t>(d.batch);
    pc.seq = static_cast<uint32_t>(d.seq);
    pc.q_heads = static_cast<uint32_t>(d.q_heads);
    pc.kv_heads = static_cast<uint32_t>(d.kv_heads);
    pc.key_size = static_cast<uint32_t>(d.key_size);
    pc.value_size = static_cast<uint32_t>(d.value_size);
    pc.decay_width = static_cast<uint32_t>(d.decay_width);
    pc.beta_heads = static_cast<uint32_t>(d.beta_heads);
    pc.has_past = r.has_input(la::kPastState) ? 1 : 0;
    pc.scale = la::output_scale(attrs, d);
    r.add_work(static_cast<uint64_t>(d.batch * d.seq * d.key_size * d.value_size *
                                     (3 + d.q_heads / d.kv_heads) * d.kv_heads));
    r.kernel<LinearAttention>().record(r.cmd(), r.arena(), pc, b);
    io.finish();
  };
}

OpFactory linear_attention_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Float16, DataType::BFloat16}, reason))
      return nullptr;
    la::Attributes attrs;
    if (!attributes_accepted([&] { attrs = la::parse_attributes(q.info); }, reason)) return nullptr;
    return linear_attention(attrs, NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(linear_attention);
void register_linear_attention_ops(OpTable& t) {
  t.add("LinearAttention", linear_attention_factory());
}

}  // namespace kiln::gpu_compute
