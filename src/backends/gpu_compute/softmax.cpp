// Softmax, LogSoftmax and Hardmax on the GPU (shaders/softmax.comp): float32, along one axis of
// a tensor viewed as the [outer, n, inner] lines their definition (opdefs/softmax.h) resolves, a
// workgroup per (outer, inner) line, or an invocation per line for lines up to kSerialLine
// elements.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr int64_t kSerialLine = 16;

// Mirrors the shader's push-constant block.
struct SoftmaxPushConstants {
  uint32_t lines = 0, n = 0, inner = 0, kind = 0, serial = 0;
};
static_assert(sizeof(SoftmaxPushConstants) <= kMaxPushConstantBytes);

class Softmax {
 public:
  explicit Softmax(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::softmax(), 2, sizeof(SoftmaxPushConstants), kWorkgroup}) {}

  // y = softmax (log-softmax, hardmax) of x along n. Records nothing for an empty tensor;
  // kiln::Error when the tensor exceeds 32-bit indexing or a buffer is too small.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Buffer& x, const Buffer& y,
              int64_t outer, int64_t n, int64_t inner, SoftmaxOp kind) const {
    const int64_t count = outer * n * inner;
    if (count == 0) return;
    check(count <= UINT32_MAX, "Softmax on the GPU: the tensor exceeds 32-bit indexing");
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(float);
    check(x.size() >= bytes && y.size() >= bytes, "Softmax on the GPU: a buffer is too small");
    const SoftmaxPushConstants pc{static_cast<uint32_t>(outer * inner), static_cast<uint32_t>(n),
                                  static_cast<uint32_t>(inner), static_cast<uint32_t>(kind),
                                  n <= kSerialLine ? 1u : 0u};
    const Buffer* buffers[] = {&x, &y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&y};
    // One invocation per short line, else one workgroup per line (the shader reads its line from
    // the workgroup's linear index).
    const uint64_t invocations = pc.serial ? uint64_t{pc.lines} : uint64_t{pc.lines} * kWorkgroup;
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, invocations), written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn softmax(SoftmaxAttrs attrs, NodeRef node) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const SoftmaxLines v = resolve_softmax(attrs, x, *node.node);
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    r.kernel<Softmax>().record(r.cmd(), r.arena(), xb, y, v.outer, v.n, v.inner, attrs.op);
  };
}

OpFactory softmax_factory(SoftmaxOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return softmax(parse_softmax_attrs(q.info, op), NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(softmax);
void register_softmax_ops(OpTable& t) {
  t.add("Softmax", softmax_factory(SoftmaxOp::Softmax));
  t.add("LogSoftmax", softmax_factory(SoftmaxOp::LogSoftmax));
  t.add("Hardmax", softmax_factory(SoftmaxOp::Hardmax));
}

}  // namespace kiln::gpu_compute
