// Pad on the GPU (shaders/pad_tile.comp): constant, reflect, edge and wrap, negative pads
// cropping, for 32- and 64-bit elements. Pads, the constant value and axes are attributes
// before opset 11; after, pads and axes are host values (CPU-resident or constant) and the
// constant value a one-element buffer the shader reads, wherever it was computed.
#include <cstring>

#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pad_tile.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

PadMode pad_mode(const std::string& mode) {
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "edge") return PadMode::Edge;
  if (mode == "wrap") return PadMode::Wrap;
  return PadMode::Constant;
}

RecordFn pad(const NodeInfo& info) {
  const PadMode mode = pad_mode(info.attr_string("mode", "constant"));
  const bool from_attributes = info.opset() < 11;
  const std::vector<int64_t> attr_pads =
      from_attributes ? info.attr_ints(info.opset() < 2 ? "paddings" : "pads")
                      : std::vector<int64_t>{};
  const float attr_value = info.attr_float("value", 0.0f);
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const auto rank = static_cast<int64_t>(x.size());
    PadParams p;
    p.mode = mode;
    const Buffer* value = nullptr;  // the constant_value input (opset 11 on)
    if (from_attributes) {
      p.pads = attr_pads;
      if (r.dtype(0) == DataType::Float32)
        std::memcpy(&p.constant_bits, &attr_value, sizeof(float));
      else if (attr_value != 0.0f)
        throw RunOnCpu(RunTimeCause::InputValues, "non-zero Pad value on integer data");
    } else {
      const std::vector<int64_t> given = to_int64_vector(r.input(1), "Pad pads");
      p.pads = given;
      if (r.has_input(3)) {  // pads for the listed axes only
        const std::vector<int64_t> axes = to_int64_vector(r.input(3), "Pad axes");
        if (given.size() != 2 * axes.size())
          throw RunOnCpu(RunTimeCause::InputValues, "pads and axes differ in length");
        p.pads.assign(static_cast<size_t>(2 * rank), 0);
        for (size_t i = 0; i < axes.size(); ++i) {
          const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
          if (a < 0 || a >= rank)
            throw RunOnCpu(RunTimeCause::InputValues, "Pad axis out of range");
          p.pads[static_cast<size_t>(a)] = given[i];
          p.pads[static_cast<size_t>(a + rank)] = given[i + axes.size()];
        }
      }
      if (r.has_input(2)) {
        if (r.dtype(2) != r.dtype(0) || r.shape(2).element_count() != 1)
          throw RunOnCpu(RunTimeCause::InputKind,
                         "Pad's constant value is not one element of the data's type");
        value = &r.buffer(2);  // read by the shader, wherever it was computed
      }
    }
    const Shape y_shape =
        or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] { return pad_output_shape(x, p); });
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), y_shape);
    r.kernel<PadTile>().pad(r.cmd(), r.arena(), p, r.dtype(0), in, x, out, value);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(pad);
void register_pad_ops(OpTable& t) {
  t.add("Pad", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    // The pads and axes are read on the host; the constant value may be on the device.
    for (size_t k = 1; k < q.input_on_cpu.size(); ++k) {
      if (k == 2) continue;
      if (q.info.has_input(k) && !q.input_on_cpu[k] && !q.info.constant_input(k)) {
        reason = "input " + std::to_string(k) + " is not a host value";
        return nullptr;
      }
    }
    return pad(q.info);
  });
}

}  // namespace kiln::gpu_compute
