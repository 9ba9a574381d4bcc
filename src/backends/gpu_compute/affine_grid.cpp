// AffineGrid on the GPU (shaders/affine_grid.comp): float32 theta, 2 or 3 spatial axes, with the
// sizes and coordinates its definition (opdefs/affine_grid.h) gives the CPU kernel too. The size
// is a host value (shape-deciding).
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/wide_float.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/affine_grid.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct AffineGridPushConstants {
  uint32_t count = 0, spatial = 2;
  uint32_t extent[3] = {1, 1, 1};
  uint32_t first[3] = {};
};
static_assert(sizeof(AffineGridPushConstants) <= kMaxPushConstantBytes);

class AffineGrid {
 public:
  explicit AffineGrid(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::affine_grid(), 3, sizeof(AffineGridPushConstants),
                                       kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const AffineGridPushConstants& pc,
              const Buffer& theta, const Buffer& coords, const Buffer& y) const {
    const Buffer* buffers[] = {&theta, &coords, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

RecordFn affine_grid(const NodeInfo& info) {
  const bool align_corners = info.attr_int("align_corners", 0) != 0;
  return [node = NodeRef(info), align_corners](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const AffineGridSizes s = resolve_affine_grid(NodeInputs{*node.node, inputs});
    if (s.out_shape.element_count() > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the grid exceeds 32-bit indexing");
    AffineGridPushConstants pc;
    pc.count = static_cast<uint32_t>(s.out_shape.element_count());
    pc.spatial = static_cast<uint32_t>(s.spatial);
    std::vector<float> coords;
    for (int64_t d = 0; d < s.spatial; ++d) {
      const int64_t extent = s.size[2 + static_cast<size_t>(d)];
      pc.extent[d] = static_cast<uint32_t>(std::max<int64_t>(extent, 1));
      pc.first[d] = static_cast<uint32_t>(coords.size() / 3);
      for (double c : affine_grid_coordinates(extent, align_corners)) push_wide(coords, c);
    }
    if (coords.empty()) coords.assign(3, 0.0f);  // a binding needs some bytes
    const Buffer& theta = r.buffer(0);
    const Buffer& table = r.upload(std::as_bytes(std::span(coords)));
    const Buffer& y = r.output(0, DataType::Float32, s.out_shape);
    r.kernel<AffineGrid>().record(r.cmd(), r.arena(), pc, theta, table, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(affine_grid);
void register_affine_grid_ops(OpTable& t) {
  t.add("AffineGrid", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    return affine_grid(q.info);
  });
}

}  // namespace kiln::gpu_compute
