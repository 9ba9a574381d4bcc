// CenterCropPad on the GPU-pixel backend: a constant (zero) Pad whose negative pads crop, on the
// Pad draw (pad_tile.h), with the pads its definition (opdefs/center_crop_pad.h) resolves for the
// CPU kernel too. Every texture dtype; the target sizes are a host value (shape-deciding).
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/pad_tile.h"
#include "opdefs/center_crop_pad.h"

namespace kiln::gpu_pixel {
namespace {

RecordFn center_crop_pad(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_center_crop_pad_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = r.rule_inputs({1});
    const CenterCropPadPlan plan = resolve_center_crop_pad(NodeInputs{*node.node, inputs}, attrs);
    const Shape& x_shape = r.shape(0);
    if (x_shape.size() > static_cast<size_t>(kPadMaxRank))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more than 6 dimensions");
    // The Pad draw reads the input's texture: an empty input padded to a non-empty output is
    // zeros the CPU writes.
    if (x_shape.element_count() == 0 && plan.out.element_count() > 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "padding an empty input");
    const TextureTensor& x = r.texture(0);
    r.kernel<PadTile>().pad(x, x_shape, plan.pads, PadMode::Constant, 0.0f,
                            r.output(0, plan.out, r.input(0).dtype()));
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(center_crop_pad);
void register_center_crop_pad_ops(OpTable& t) {
  t.add("CenterCropPad", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1) || !host_inputs(q, 1, reason)) return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() > static_cast<size_t>(kPadMaxRank)) {
      reason = "more than 6 dimensions";
      return nullptr;
    }
    return center_crop_pad(q.info);
  });
}

}  // namespace kiln::gpu_pixel
