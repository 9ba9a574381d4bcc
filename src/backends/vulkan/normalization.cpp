#include "backends/vulkan/normalization.h"

#include <span>

#include "backends/vulkan/shaders.h"
#include "kiln/error.h"

namespace kiln::vulkan {
namespace {

constexpr uint32_t kWorkgroup = 64;

}  // namespace

Normalization::Normalization(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::normalization(), 6, sizeof(NormPushConstants), kWorkgroup}) {}

void Normalization::record(VkCommandBuffer cmd, DescriptorArena& arena, const NormProblem& np,
                           const Buffer& x, const Buffer* scale, const Buffer* bias,
                           const Buffer* mean, const Buffer* var, const Buffer& y) const {
  const int64_t count = np.outer * np.n * np.inner;
  if (count == 0) return;
  check(count <= UINT32_MAX && np.channel_mod <= UINT32_MAX && np.channel_mul <= UINT32_MAX &&
            np.channel_div >= 1 && np.channel_div <= UINT32_MAX,
        "normalization on the GPU: the tensor exceeds 32-bit indexing");
  check(np.mode != NormMode::Given || (mean && var),
        "normalization on the GPU: given statistics need mean and var");
  const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(float);
  check(x.size() >= bytes && y.size() >= bytes, "normalization on the GPU: a buffer is too small");
  NormPushConstants pc;
  pc.mode = static_cast<uint32_t>(np.mode);
  pc.lines = static_cast<uint32_t>(np.outer * np.inner);
  pc.n = static_cast<uint32_t>(np.n);
  pc.inner = static_cast<uint32_t>(np.inner);
  pc.channel_mod = static_cast<uint32_t>(np.channel_mod);
  pc.channel_mul = static_cast<uint32_t>(np.channel_mul);
  pc.channel_div = static_cast<uint32_t>(np.channel_div);
  pc.has_scale = scale ? 1 : 0;
  pc.has_bias = bias ? 1 : 0;
  pc.p = np.p;
  pc.epsilon = np.epsilon;
  // Unused bindings still need a buffer; the shader never reads them.
  const Buffer* buffers[] = {
      &x, scale ? scale : &x, bias ? bias : &x, mean ? mean : &x, var ? var : &x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  // One workgroup per line: the shader reads its line from the workgroup's linear index.
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, uint64_t{pc.lines} * kWorkgroup), written);
}

}  // namespace kiln::vulkan
