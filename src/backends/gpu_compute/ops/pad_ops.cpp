// Pad on the GPU (shaders/pad_tile.comp): constant, reflect, edge and wrap, negative pads
// cropping, for 32- and 64-bit elements. Pads, the constant value and axes are attributes
// before opset 11 and host values (CPU-resident or constant) after.
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

// The raw bytes of a one-element host tensor (the constant value), in the low bits.
uint64_t bits_of(const Tensor& value, DataType data_type) {
  if (value.element_count() != 1 || value.dtype() != data_type)
    throw RunOnCpu(RunTimeCause::InputValues,
                   "Pad's constant value is not one element of the data's type");
  uint64_t bits = 0;
  std::memcpy(&bits, value.raw_data(), dtype_size(value.dtype()));
  return bits;
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
      if (r.has_input(2)) p.constant_bits = bits_of(r.input(2), r.dtype(0));
    }
    const Shape y_shape =
        or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] { return pad_output_shape(x, p); });
    const Buffer& in = r.buffer(0);
    const Buffer& out = r.output(0, r.dtype(0), y_shape);
    r.kernel<PadTile>().pad(r.cmd(), r.arena(), p, r.dtype(0), in, x, out);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(pad);
void register_pad_ops(OpTable& t) {
  t.add("Pad", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    for (size_t k = 1; k < q.input_on_cpu.size(); ++k) {
      if (q.info.has_input(k) && !q.input_on_cpu[k] && !q.info.constant_input(k)) {
        reason = "input " + std::to_string(k) + " is not a host value";
        return nullptr;
      }
    }
    return pad(q.info);
  });
}

}  // namespace kiln::gpu_compute
