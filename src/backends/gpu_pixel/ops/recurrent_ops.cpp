// LSTM as draws (backends/gpu_pixel/lstm) for its common subset: float32, layout 0, the default
// activations, no clip, no input_forget, and sequence_lens absent or all equal to X's sequence
// length. Other nodes run on the CPU with the reason at load time; other sequence lengths, and
// inputs the CPU op rejects (so that it reports them in its own words), per run.
#include <array>

#include "backends/gpu_common/device_lstm.h"
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/lstm.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "opdefs/broadcast.h"
#include "opdefs/recurrent.h"

namespace kiln::gpu_pixel {
namespace {

using recurrent::RecurrentAttributes;

OpFactory lstm_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    using namespace recurrent;
    // Every input but sequence_lens (integers, a host value) is float data.
    if (!float_inputs(q, reason, kX, kSequenceLens) || !float_inputs(q, reason, kInitialH)) {
      return nullptr;
    }
    const CellSpec spec = lstm_cell_spec();
    const RecurrentAttributes attrs = parse_recurrent_attributes(q.info, spec);
    reason = lstm_outside_gpu_subset(q.info, attrs);
    if (!reason.empty()) return nullptr;
    const std::array<bool, 3> wanted = {q.info.has_output(0), q.info.has_output(1),
                                        q.info.has_output(2)};
    return [spec, attrs, wanted, node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = run_inputs(r);
      const RecurrentShape s = check_inputs({*node.node, inputs}, attrs, spec);
      if (r.has_input(kSequenceLens)) {
        for (int64_t length : to_int64_vector(r.host(kSequenceLens), "sequence_lens")) {
          if (length != s.seq)
            throw RunOnCpu(RunTimeCause::InputValues,
                           "sequence_lens other than X's sequence length");
        }
      }
      auto optional_texture = [&](size_t k) { return r.has_input(k) ? &r.texture(k) : nullptr; };
      LstmTensors t{&r.texture(kX),
                    &r.texture(kW),
                    &r.texture(kR),
                    optional_texture(kB),
                    optional_texture(kInitialH),
                    optional_texture(kInitialC),
                    optional_texture(kPeepholes),
                    wanted[0] ? &r.output(0, s.y_shape()) : nullptr,
                    wanted[1] ? &r.output(1, s.state_shape()) : nullptr,
                    wanted[2] ? &r.output(2, s.state_shape()) : nullptr};
      const LstmShape shape{s.seq, s.batch, s.input, s.hidden, s.directions};
      r.kernel<Lstm>().record(shape, {attrs.reversed(0), attrs.reversed(1)}, t);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(recurrent);
void register_recurrent_ops(OpTable& t) { t.add("LSTM", lstm_factory()); }

}  // namespace kiln::gpu_pixel
