#include "backends/gpu_compute/unary_elementwise.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

UnaryElementwise::UnaryElementwise(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::unary_elementwise(), 2, sizeof(UnaryPushConstants),
                                     workgroup_size}) {}

void UnaryElementwise::record(VkCommandBuffer cmd, DescriptorArena& arena,
                              const UnaryParams& params, const Buffer& x, const Buffer& y,
                              uint64_t count) const {
  check(count <= UINT32_MAX,
        "unary op on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  check_unary_params(params, "unary op on the GPU");
  if (count == 0) return;
  const uint64_t bytes = count * sizeof(float);
  check(x.size() >= bytes && y.size() >= bytes,
        "unary op on the GPU: a buffer is smaller than its element count");
  const UnaryPushConstants pc{static_cast<uint32_t>(params.op), static_cast<uint32_t>(count),
                              params.alpha, params.beta};
  const Buffer* buffers[] = {&x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, count), written);
}

}  // namespace kiln::gpu_compute
