// Col2Im on the GPU (shaders/col2im.comp): float32 columns folded back into images of up to 3
// spatial axes, with the geometry its definition (opdefs/col2im.h) resolves for the CPU kernel
// too. The image and block shapes are host values (shape-deciding).
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
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/col2im.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
constexpr size_t kMaxSpatialAxes = 3;

// Mirrors the shader's push-constant block.
struct Col2ImPushConstants {
  uint32_t count = 0, rank = 0, block_size = 1, columns = 1, image_size = 1;
  uint32_t image[kMaxSpatialAxes] = {}, block[kMaxSpatialAxes] = {};
  uint32_t dilation[kMaxSpatialAxes] = {}, pad_begin[kMaxSpatialAxes] = {};
  uint32_t stride[kMaxSpatialAxes] = {}, positions[kMaxSpatialAxes] = {};
};
static_assert(sizeof(Col2ImPushConstants) <= kMaxPushConstantBytes);

class Col2Im {
 public:
  explicit Col2Im(Device& device)
      : device_(device),
        pipeline_(device,
                  PipelineDesc{shaders::col2im(), 2, sizeof(Col2ImPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Col2ImPushConstants& pc,
              const Buffer& x, const Buffer& y) const {
    const Buffer* buffers[] = {&x, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// The push constants for a run; RunOnCpu where the geometry is beyond the kernel.
Col2ImPushConstants push_constants(const Col2ImGeometry& g, int64_t in_elements) {
  const size_t rank = g.image.size();
  if (rank > kMaxSpatialAxes)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more than 3 spatial axes");
  const int64_t count = g.planes * g.image_size;
  if (count > INT32_MAX || in_elements > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
  Col2ImPushConstants pc;
  pc.count = static_cast<uint32_t>(count);
  pc.rank = static_cast<uint32_t>(rank);
  pc.block_size = static_cast<uint32_t>(g.block_size);
  pc.columns = static_cast<uint32_t>(g.columns);
  pc.image_size = static_cast<uint32_t>(std::max<int64_t>(g.image_size, 1));
  for (size_t d = 0; d < rank; ++d) {
    // The shader's signed position arithmetic: padded extents within 31 bits.
    if (g.image[d] + g.pad_begin[d] > INT32_MAX || g.dilation[d] * (g.block[d] - 1) > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "padding or dilation beyond 32-bit positions");
    pc.image[d] = static_cast<uint32_t>(g.image[d]);
    pc.block[d] = static_cast<uint32_t>(g.block[d]);
    pc.dilation[d] = static_cast<uint32_t>(g.dilation[d]);
    pc.pad_begin[d] = static_cast<uint32_t>(g.pad_begin[d]);
    pc.stride[d] = static_cast<uint32_t>(g.stride[d]);
    pc.positions[d] = static_cast<uint32_t>(g.positions[d]);
  }
  return pc;
}

RecordFn col2im(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_col2im_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const Col2ImGeometry g = resolve_col2im(NodeInputs{*node.node, inputs}, attrs);
    const Col2ImPushConstants pc = push_constants(g, r.shape(0).element_count());
    const Buffer& x = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, g.out_shape);
    r.add_work(static_cast<uint64_t>(pc.count) * pc.block_size);
    r.kernel<Col2Im>().record(r.cmd(), r.arena(), pc, x, y);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(col2im);
void register_col2im_ops(OpTable& t) {
  t.add("Col2Im", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    return col2im(q.info);
  });
}

}  // namespace kiln::gpu_compute
