// LSTM as draws (backends/gl/lstm) for its common subset: float32, layout 0, the default
// activations, no clip, no input_forget, and sequence_lens absent or all equal to X's sequence
// length. Other nodes run on the CPU with the reason at load time; other sequence lengths, and
// inputs the CPU op rejects (so that it reports them in its own words), per run.
#include <array>

#include "backends/gl/lstm.h"
#include "backends/gl/ops/op_table.h"
#include "ops/recurrent_common.h"
#include "runtime/cpu_op_rules.h"

namespace kiln::gl {
namespace {

using recurrent::RecurrentAttributes;

bool default_lstm_activations(const RecurrentAttributes& attrs) {
  for (int64_t d = 0; d < attrs.num_directions; ++d) {
    if (attrs.activation(d, 0).kind != recurrent::ActivationKind::kSigmoid ||
        attrs.activation(d, 1).kind != recurrent::ActivationKind::kTanh ||
        attrs.activation(d, 2).kind != recurrent::ActivationKind::kTanh) {
      return false;
    }
  }
  return true;
}

// Why the draws cannot run this node, or empty when they can.
std::string unsupported_lstm(const NodeInfo& info, const RecurrentAttributes& attrs) {
  if (attrs.layout != 0) return "layout 1 has no GPU-pixel kernel";
  if (attrs.has_clip) return "the clip attribute has no GPU-pixel kernel";
  if (!default_lstm_activations(attrs))
    return "activations other than the default have no GPU-pixel kernel";
  if (info.attr_int("input_forget", 0) != 0) return "input_forget has no GPU-pixel kernel";
  return {};
}

OpFactory lstm_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    using namespace recurrent;
    // Every input but sequence_lens (integers, a host value) is float data.
    if (!float_inputs(q, reason, kX, kSequenceLens) || !float_inputs(q, reason, kInitialH)) {
      return nullptr;
    }
    const CellSpec spec = lstm_cell_spec();
    const RecurrentAttributes attrs = parse_recurrent_attributes(q.info, spec);
    reason = unsupported_lstm(q.info, attrs);
    if (!reason.empty()) return nullptr;
    const std::array<bool, 3> wanted = {q.info.has_output(0), q.info.has_output(1),
                                        q.info.has_output(2)};
    return [spec, attrs, wanted, node = NodeRef(q.info)](OpRecorder& r) {
      const ResolveContext resolve(node, run_inputs(r));
      const RecurrentShape s =
          or_run_on_cpu([&] { return check_inputs(resolve.context(), attrs, spec); });
      if (r.has_input(kSequenceLens)) {
        const int64_t* lengths =
            or_run_on_cpu([&] { return read_sequence_lengths(resolve.context(), s); });
        for (int64_t b = 0; b < s.batch; ++b) {
          if (lengths[b] != s.seq) {
            throw RunOnCpu("sequence_lens shorter than X's sequence length");
          }
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

void register_recurrent_ops(OpTable& t) { t.add("LSTM", lstm_factory()); }

}  // namespace kiln::gl
