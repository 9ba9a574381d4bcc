#include "backends/vulkan/pool.h"

#include <span>
#include <string>

#include "backends/vulkan/shaders.h"
#include "kiln/error.h"

namespace kiln::vulkan {
namespace {

uint32_t narrow(int64_t v, const char* what) {
  check(v >= 0 && v <= INT32_MAX,
        std::string("pooling on the GPU: ") + what + " exceeds 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

PoolPushConstants pool_constants(const cpu::PoolShape& s, PoolKind kind, bool count_include_pad) {
  const cpu::ConvGeometry& g = s.geometry;
  const size_t rank = g.rank();
  check(rank == 1 || rank == 2,
        "pooling on the GPU: " + std::to_string(rank) + " spatial axes (the kernel takes 1 or 2)");
  // A 1-D pool is a 2-D one over images of height 1.
  auto at = [&](const Shape& v, size_t axis, int64_t one) {
    return rank == 1 ? (axis == 0 ? one : v[0]) : v[axis];
  };
  PoolPushConstants pc;
  pc.average = kind == PoolKind::Average ? 1 : 0;
  pc.count_include_pad = count_include_pad ? 1 : 0;
  pc.H = narrow(at(g.in, 0, 1), "height");
  pc.W = narrow(at(g.in, 1, 1), "width");
  pc.OH = narrow(at(g.out, 0, 1), "height");
  pc.OW = narrow(at(g.out, 1, 1), "width");
  pc.KH = narrow(at(g.kernel, 0, 1), "kernel");
  pc.KW = narrow(at(g.kernel, 1, 1), "kernel");
  pc.sh = narrow(at(g.stride, 0, 1), "stride");
  pc.sw = narrow(at(g.stride, 1, 1), "stride");
  pc.dh = narrow(at(g.dilation, 0, 1), "dilation");
  pc.dw = narrow(at(g.dilation, 1, 1), "dilation");
  pc.ph = static_cast<int32_t>(at(g.pad, 0, 0));
  pc.pw = static_cast<int32_t>(at(g.pad, 1, 0));
  pc.pad_end_h = static_cast<int32_t>(at(s.pad_end, 0, 0));
  pc.pad_end_w = static_cast<int32_t>(at(s.pad_end, 1, 0));
  narrow(s.planes * g.in_size(), "the input");
  pc.count = narrow(s.planes * g.out_size(), "the output");
  return pc;
}

Pool::Pool(Device& device)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::pool(), 2, sizeof(PoolPushConstants), 64}) {}

void Pool::record(VkCommandBuffer cmd, DescriptorArena& arena, const PoolPushConstants& pc,
                  const Buffer& x, const Buffer& y) const {
  if (pc.count == 0) return;
  check(y.size() >= uint64_t{pc.count} * sizeof(float),
        "pooling on the GPU: the output buffer is too small");
  const Buffer* buffers[] = {&x, &y};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&y};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, pc.count), written);
}

}  // namespace kiln::vulkan
