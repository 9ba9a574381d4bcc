#include "backends/gpu_compute/pool.h"

#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

uint32_t narrow(int64_t v, const char* what) {
  check(v >= 0 && v <= INT32_MAX,
        std::string("pooling on the GPU: ") + what + " exceeds 32-bit indexing");
  return static_cast<uint32_t>(v);
}

}  // namespace

PoolPushConstants pool_constants(const PoolShape& s, PoolOp kind, bool count_include_pad, float p) {
  const WindowGeometry& g = s.geometry;
  const size_t rank = g.rank();
  check(rank >= 1 && rank <= kPoolMaxSpatialAxes,
        "pooling on the GPU: " + std::to_string(rank) + " spatial axes (the kernel takes 1 to 3)");
  check(kind != PoolOp::Lp || p > 0.0f, "LpPool on the GPU: p must be positive");
  PoolPushConstants pc;
  pc.kind = static_cast<uint32_t>(kind);
  pc.count_include_pad = count_include_pad ? 1 : 0;
  pc.p = p;
  // Spatial axis d fills entry `first + d`, leaving the leading entries at their size-1 values.
  const size_t first = kPoolMaxSpatialAxes - rank;
  for (size_t d = 0; d < rank; ++d) {
    pc.in[first + d] = narrow(g.in[d], "an input axis");
    pc.out[first + d] = narrow(g.out[d], "an output axis");
    pc.kernel[first + d] = narrow(g.kernel[d], "the kernel");
    pc.stride[first + d] = narrow(g.stride[d], "a stride");
    pc.dilation[first + d] = narrow(g.dilation[d], "a dilation");
    pc.pad[first + d] = static_cast<int32_t>(narrow(g.pad[d], "a pad"));
    pc.pad_end[first + d] = static_cast<int32_t>(narrow(s.pad_end[d], "a pad"));
  }
  check(g.coordinates_fit_int32(s.pad_end),
        "pooling on the GPU: window coordinates beyond 32-bit indexing");
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
  record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
}

MaxPoolWithIndices::MaxPoolWithIndices(Device& device)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::max_pool_indices(), 3, sizeof(PoolPushConstants), 64}) {}

void MaxPoolWithIndices::record(VkCommandBuffer cmd, DescriptorArena& arena,
                                const PoolPushConstants& pc, const Buffer& x, const Buffer& y,
                                const Buffer& indices) const {
  if (pc.count == 0) return;
  check(pc.kind == static_cast<uint32_t>(PoolOp::Max), "pool indices on the GPU: not a MaxPool");
  check(y.size() >= uint64_t{pc.count} * sizeof(float) &&
            indices.size() >= uint64_t{pc.count} * sizeof(int64_t),
        "MaxPool on the GPU: the output buffers are too small");
  const Buffer* buffers[] = {&x, &y, &indices};
  record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers, 2);
}

}  // namespace kiln::gpu_compute
