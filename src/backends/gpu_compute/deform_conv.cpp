// DeformConv on the GPU (shaders/deform_conv.comp) for float32 inputs: the geometry and checks
// are the definition's (opdefs/deform_conv.h); the shader computes each output element from
// the displaced, bilinear samples of its group's input channels.
//
// The family in one file: the kernel and its adapter. Nothing else uses the kernel, so it has no
// header.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/deform_conv.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;

// Mirrors the shader's push-constant block.
struct DeformConvPushConstants {
  uint32_t count = 0;
  uint32_t in_c = 0, in_h = 0, in_w = 0;
  uint32_t out_c = 0, out_h = 0, out_w = 0;
  uint32_t k_h = 0, k_w = 0;
  int32_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, pad_h = 0, pad_w = 0;
  uint32_t in_per_group = 0, out_per_group = 0, in_per_offset_group = 0, offset_group = 0;
  uint32_t has_bias = 0, has_mask = 0;
};
static_assert(sizeof(DeformConvPushConstants) <= kMaxPushConstantBytes);

class DeformConv {
 public:
  explicit DeformConv(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::deform_conv(), 6, sizeof(DeformConvPushConstants),
                                       kWorkgroup}) {}

  // y = the deformable convolution; `bias` and `mask` may be null.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const DeformConvPushConstants& pc,
              const Buffer& x, const Buffer& w, const Buffer& offset, const Buffer* bias,
              const Buffer* mask, const Buffer& y) const {
    // Unused bindings still need a buffer; the shader never reads them.
    const Buffer* buffers[] = {&x, &w, &offset, bias ? bias : &x, mask ? mask : &x, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapter -----------------------------------------------------------------------------

// Whether every value fits the shader's 32-bit arithmetic.
bool fits_32_bits(const DeformGeometry& g, int64_t out_count, int64_t x_count,
                  int64_t offset_count) {
  for (int64_t v : {out_count, x_count, offset_count, g.stride_h * g.out_h + g.dil_h * g.k_h,
                    g.stride_w * g.out_w + g.dil_w * g.k_w, g.pad_h, g.pad_w}) {
    if (v > INT32_MAX) return false;
  }
  return true;
}

RecordFn deform_conv(DeformConvAttrs attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const DeformGeometry g = resolve_deform_conv(NodeInputs{*node.node, inputs}, attrs);
    const Shape out_shape{g.batch, g.out_c, g.out_h, g.out_w};
    const int64_t count = out_shape.element_count();
    if (!fits_32_bits(g, count, r.shape(0).element_count(), r.shape(2).element_count()))
      throw RunOnCpu(RunTimeCause::DeviceLimit, "a tensor exceeds 32-bit indexing");
    DeformConvPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.in_c = static_cast<uint32_t>(g.in_c);
    pc.in_h = static_cast<uint32_t>(g.in_h);
    pc.in_w = static_cast<uint32_t>(g.in_w);
    pc.out_c = static_cast<uint32_t>(g.out_c);
    pc.out_h = static_cast<uint32_t>(g.out_h);
    pc.out_w = static_cast<uint32_t>(g.out_w);
    pc.k_h = static_cast<uint32_t>(g.k_h);
    pc.k_w = static_cast<uint32_t>(g.k_w);
    pc.stride_h = static_cast<int32_t>(g.stride_h);
    pc.stride_w = static_cast<int32_t>(g.stride_w);
    pc.dil_h = static_cast<int32_t>(g.dil_h);
    pc.dil_w = static_cast<int32_t>(g.dil_w);
    pc.pad_h = static_cast<int32_t>(g.pad_h);
    pc.pad_w = static_cast<int32_t>(g.pad_w);
    pc.in_per_group = static_cast<uint32_t>(g.in_c / g.group);
    pc.out_per_group = static_cast<uint32_t>(g.out_c / g.group);
    pc.in_per_offset_group = static_cast<uint32_t>(g.in_c / g.offset_group);
    pc.offset_group = static_cast<uint32_t>(g.offset_group);
    const bool has_bias = r.has_input(3), has_mask = r.has_input(4);
    pc.has_bias = has_bias ? 1 : 0;
    pc.has_mask = has_mask ? 1 : 0;
    const Buffer& y = r.output(0, DataType::Float32, out_shape);
    if (count == 0) return;
    r.add_work(static_cast<uint64_t>(count) * static_cast<uint64_t>(pc.in_per_group) *
               static_cast<uint64_t>(g.taps()));
    const Buffer& x = r.buffer(0);
    const Buffer& w = r.buffer(1);
    const Buffer& offset = r.buffer(2);
    const Buffer* bias = has_bias ? &r.buffer(3) : nullptr;
    const Buffer* mask = has_mask ? &r.buffer(4) : nullptr;
    r.kernel<DeformConv>().record(r.cmd(), r.arena(), pc, x, w, offset, bias, mask, y);
  };
}

OpFactory deform_conv_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const DeformConvAttrs attrs = parse_deform_conv_attrs(q.info);
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return deform_conv(attrs, NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(deform_conv);
void register_deform_conv_ops(OpTable& t) { t.add("DeformConv", deform_conv_factory()); }

}  // namespace kiln::gpu_compute
