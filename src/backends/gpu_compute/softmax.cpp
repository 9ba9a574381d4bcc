#include "backends/gpu_compute/softmax.h"

#include <span>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroup = 64;

}  // namespace

Softmax::Softmax(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::softmax(), 2, sizeof(SoftmaxPushConstants), kWorkgroup}) {}

void Softmax::record(VkCommandBuffer cmd, DescriptorArena& arena, const Buffer& x, const Buffer& y,
                     int64_t outer, int64_t n, int64_t inner, SoftmaxOp kind) const {
  const int64_t count = outer * n * inner;
  if (count == 0) return;
  check(count <= UINT32_MAX, "Softmax on the GPU: the tensor exceeds 32-bit indexing");
  const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(float);
  check(x.size() >= bytes && y.size() >= bytes, "Softmax on the GPU: a buffer is too small");
  const SoftmaxPushConstants pc{static_cast<uint32_t>(outer * inner), static_cast<uint32_t>(n),
                                static_cast<uint32_t>(inner), static_cast<uint32_t>(kind),
                                n <= kSoftmaxSerialLine ? 1u : 0u};
  const Buffer* buffers[] = {&x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  // One invocation per short line, else one workgroup per line (the shader reads its line from
  // the workgroup's linear index).
  const uint64_t invocations = pc.serial ? uint64_t{pc.lines} : uint64_t{pc.lines} * kWorkgroup;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
