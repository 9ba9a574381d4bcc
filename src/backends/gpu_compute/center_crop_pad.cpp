// CenterCropPad on the GPU: a constant (zero) Pad whose negative pads crop, on the Pad kernel
// (pad_tile.h), with the pads its definition (opdefs/center_crop_pad.h) resolves for the CPU
// kernel too. Float32, int32 and int64 tensors; the target sizes are a host value
// (shape-deciding).
#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pad_tile.h"
#include "backends/gpu_compute/region_copy.h"
#include "opdefs/center_crop_pad.h"

namespace kiln::gpu_compute {
namespace {

RecordFn center_crop_pad(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_center_crop_pad_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const CenterCropPadPlan plan = resolve_center_crop_pad(NodeInputs{*node.node, inputs}, attrs);
    PadParams p;
    p.mode = PadMode::Constant;
    p.pads = plan.pads;
    if (r.shape(0).size() > static_cast<size_t>(kPadMaxRank))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "more than 6 dimensions");
    const uint64_t words = element_words(r.dtype(0));
    if (static_cast<uint64_t>(r.shape(0).element_count()) * words > INT32_MAX ||
        static_cast<uint64_t>(plan.out.element_count()) * words > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), plan.out);
    r.kernel<PadTile>().pad(r.cmd(), r.arena(), p, r.dtype(0), in, r.shape(0), out);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(center_crop_pad);
void register_center_crop_pad_ops(OpTable& t) {
  t.add("CenterCropPad", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() > static_cast<size_t>(kPadMaxRank)) {
      reason = "more than 6 dimensions";
      return nullptr;
    }
    return center_crop_pad(q.info);
  });
}

}  // namespace kiln::gpu_compute
