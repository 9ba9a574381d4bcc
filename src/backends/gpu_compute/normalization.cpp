#include "backends/gpu_compute/normalization.h"

#include <span>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kWorkgroup = 64;

}  // namespace

Normalization::Normalization(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::normalization(), 8, sizeof(NormPushConstants), kWorkgroup}) {}

void Normalization::record(VkCommandBuffer cmd, DescriptorArena& arena, const NormProblem& np,
                           const Buffer& x, const Buffer* scale, const Buffer* bias,
                           const Buffer* mean, const Buffer* var, const Buffer& y,
                           const Buffer* mean_out, const Buffer* inv_std_out) const {
  const int64_t count = np.outer * np.n * np.inner;
  if (count == 0) return;
  check(count <= UINT32_MAX && np.channel_mod <= UINT32_MAX && np.channel_mul <= UINT32_MAX &&
            np.channel_div >= 1 && np.channel_div <= UINT32_MAX,
        "normalization on the GPU: the tensor exceeds 32-bit indexing");
  check(np.mode != NormMode::Given || (mean && var),
        "normalization on the GPU: given statistics need mean and var");
  const bool stats = mean_out && inv_std_out;
  check(!stats || np.mode == NormMode::Moments || np.mode == NormMode::Rms,
        "normalization on the GPU: only computed statistics can be written out");
  const uint64_t lines = static_cast<uint64_t>(np.outer * np.inner);
  check(!stats || (mean_out->size() >= lines * sizeof(float) &&
                   inv_std_out->size() >= lines * sizeof(float)),
        "normalization on the GPU: a statistics buffer is too small");
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
  pc.write_stats = stats ? 1 : 0;
  pc.serial = np.n <= kNormSerialLine ? 1 : 0;
  pc.epsilon = np.epsilon;
  // Unused bindings still need a buffer; the shader never touches them.
  const Buffer* mean_slot = stats ? mean_out : &y;
  const Buffer* inv_std_slot = stats ? inv_std_out : &y;
  const Buffer* buffers[] = {
      &x, scale ? scale : &x, bias ? bias : &x, mean ? mean : &x, var ? var : &x,
      &y, mean_slot,          inv_std_slot};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y, mean_slot, inv_std_slot};
  // One invocation per short line, else one workgroup per line (the shader reads its line from
  // the workgroup's linear index).
  const uint64_t invocations = pc.serial ? uint64_t{pc.lines} : uint64_t{pc.lines} * kWorkgroup;
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, invocations), written);
}

}  // namespace kiln::gpu_compute
