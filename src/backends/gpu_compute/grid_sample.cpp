// GridSample on the GPU (shaders/grid_sample.comp): float32 X and grid with 1 to 3 spatial axes,
// every mode, padding and align_corners of its definition (opdefs/grid_sample.h). More spatial
// axes and other dtypes stay on the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/grid_sample.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr size_t kMaxSpatialAxes = 3;

// Mirrors the shader's push-constant block.
struct GridSamplePushConstants {
  uint32_t items = 0;
  uint32_t channels = 0, rank = 0;
  uint32_t mode = 0, padding = 0, align_corners = 0;
  uint32_t out_plane = 1, in_plane = 1;
  uint32_t in_size[kMaxSpatialAxes] = {};
};
static_assert(sizeof(GridSamplePushConstants) <= kMaxPushConstantBytes);

class GridSample {
 public:
  explicit GridSample(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::grid_sample(), 3, sizeof(GridSamplePushConstants),
                                       kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const GridSamplePushConstants& pc,
              const Buffer& x, const Buffer& grid, const Buffer& y) const {
    if (pc.items == 0 || pc.channels == 0) return;
    const Buffer* buffers[] = {&x, &grid, &y};
    const VkDescriptorSet set = arena.bind(pipeline_, buffers);
    const Buffer* written[] = {&y};
    record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                    groups_for(device_, pipeline_, pc.items), written);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The push constants and output shape for X and grid, or nullopt when the kernel does not take
// them: shapes the definition rejects (the CPU kernel reports them), more than 3 spatial axes,
// empty spatial axes or 32-bit overflow.
std::optional<std::pair<GridSamplePushConstants, Shape>> plan(const GridSampleAttrs& a,
                                                              const Shape& xs, const Shape& gs) {
  std::string error;
  std::optional<Shape> out = grid_sample_output_shape(xs, gs, error);
  if (!out || xs.size() > 2 + kMaxSpatialAxes) return std::nullopt;
  const size_t rank = xs.size() - 2;
  GridSamplePushConstants pc;
  pc.rank = static_cast<uint32_t>(rank);
  pc.mode = static_cast<uint32_t>(a.mode);
  pc.padding = static_cast<uint32_t>(a.padding);
  pc.align_corners = a.align_corners ? 1 : 0;
  uint64_t in_plane = 1, out_plane = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (xs[2 + d] == 0) return std::nullopt;
    pc.in_size[d] = static_cast<uint32_t>(xs[2 + d]);
    in_plane *= static_cast<uint64_t>(xs[2 + d]);
    out_plane *= static_cast<uint64_t>(gs[1 + d]);
  }
  const auto batch = static_cast<uint64_t>(xs[0]), channels = static_cast<uint64_t>(xs[1]);
  if (batch * channels * in_plane > INT32_MAX || batch * channels * out_plane > INT32_MAX ||
      batch * out_plane * rank > INT32_MAX)
    return std::nullopt;
  pc.items = static_cast<uint32_t>(batch * out_plane);
  pc.channels = static_cast<uint32_t>(channels);
  pc.in_plane = static_cast<uint32_t>(in_plane);
  pc.out_plane = static_cast<uint32_t>(std::max<uint64_t>(out_plane, 1));
  return std::pair{pc, std::move(*out)};
}

RecordFn grid_sample(GridSampleAttrs attrs) {
  return [attrs](OpRecorder& r) {
    const auto p = plan(attrs, r.shape(0), r.shape(1));
    if (!p)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU GridSample kernel");
    const Buffer& x = r.buffer(0);
    const Buffer& grid = r.buffer(1);
    const Buffer& y = r.output(0, DataType::Float32, p->second);
    r.kernel<GridSample>().record(r.cmd(), r.arena(), p->first, x, grid, y);
  };
}

OpFactory grid_sample_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const GridSampleAttrs attrs = parse_grid_sample_attrs(q.info);
    const Shape *x = static_input_shape(q, 0), *grid = static_input_shape(q, 1);
    if (x && grid && !plan(attrs, *x, *grid)) {
      reason = "shapes outside the GPU GridSample kernel (more than 3 spatial axes, or empty)";
      return nullptr;
    }
    return grid_sample(attrs);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(grid_sample);
void register_grid_sample_ops(OpTable& t) { t.add("GridSample", grid_sample_factory()); }

}  // namespace kiln::gpu_compute
