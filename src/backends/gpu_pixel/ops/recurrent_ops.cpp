// LSTM as draws (backends/gpu_pixel/lstm) for its common subset: float32, either layout (1
// through region-copy transposes around the layout-0 draws), the default activations, no clip, no
// input_forget, and sequence_lens absent or all equal to X's sequence length. Other nodes run on
// the CPU with the reason at load time; other sequence lengths, and inputs the CPU op rejects (so
// that it reports them in its own words), per run. RNN and GRU as draws
// (backends/gpu_pixel/recurrent_step) for every float32 node: any direction, layout, activations,
// clip and sequence lengths (a host value, checked by the definition as the CPU checks it).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "backends/gpu_common/device_lstm.h"
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_pixel/lstm.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/recurrent_step.h"
#include "backends/gpu_pixel/region_copy.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"
#include "opdefs/recurrent.h"

namespace kiln::gpu_pixel {
namespace {

using recurrent::RecurrentAttributes;

// Layout 1 (batch-major X, initial states, Y, Y_h and Y_c) runs the layout-0 draws between
// transposes: the inputs' first two dims swap into temporaries before, the outputs' back after.
class BatchMajorLstm {
 public:
  BatchMajorLstm(OpRecorder& r, const recurrent::RecurrentShape& s) : r_(r), s_(s) {}

  // Input k ([batch, x, y]) as a sequence-major temporary ([x, batch, y]).
  const TextureTensor* input(size_t k) {
    if (!r_.has_input(k)) return nullptr;
    const int64_t swap_leading[] = {1, 0, 2};
    TextureTensor& out = keep(r_.shape(k).element_count());
    r_.kernel<RegionCopy>().record(transpose_region(r_.shape(k), swap_leading), r_.texture(k), out);
    return &out;
  }
  // A sequence-major temporary for output k, transposed into the output by finish().
  TextureTensor* output(size_t k, bool wanted) {
    if (!wanted) return nullptr;
    const int64_t count = k == 0 ? s_.seq * s_.directions * s_.batch * s_.hidden
                                 : s_.directions * s_.batch * s_.hidden;
    outputs_[k] = &keep(count);
    return outputs_[k];
  }
  // Y [seq, directions, batch, hidden] to [batch, seq, directions, hidden]; the states'
  // [directions, batch, hidden] to [batch, directions, hidden].
  void finish() {
    const int64_t y_perm[] = {2, 0, 1, 3}, state_perm[] = {1, 0, 2};
    const Shape y_shape{s_.seq, s_.directions, s_.batch, s_.hidden};
    const Shape state{s_.directions, s_.batch, s_.hidden};
    for (size_t k = 0; k < 3; ++k) {
      if (!outputs_[k]) continue;
      const Region region =
          k == 0 ? transpose_region(y_shape, y_perm) : transpose_region(state, state_perm);
      const Shape out_shape = k == 0 ? s_.y_shape() : s_.state_shape();
      r_.kernel<RegionCopy>().record(region, *outputs_[k], r_.output(k, out_shape));
    }
  }

 private:
  TextureTensor& keep(int64_t elements) {
    temporaries_.push_back(std::make_unique<TextureTensor>(r_.temporary(elements)));
    return *temporaries_.back();
  }

  OpRecorder& r_;
  const recurrent::RecurrentShape& s_;
  std::vector<std::unique_ptr<TextureTensor>> temporaries_;
  std::array<TextureTensor*, 3> outputs_{};
};

OpFactory lstm_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    using namespace recurrent;
    // Every input but sequence_lens (integers, a host value) is float data.
    if (!float_inputs(q, reason, kX, kSequenceLens) || !float_inputs(q, reason, kInitialH)) {
      return nullptr;
    }
    const CellSpec spec = lstm_cell_spec();
    const RecurrentAttributes attrs = parse_recurrent_attributes(q.info, spec);
    reason = lstm_outside_gpu_subset(q.info, attrs, /*batch_major=*/true);
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
      const LstmShape shape{s.seq, s.batch, s.input, s.hidden, s.directions};
      const std::array<bool, 2> reversed = {attrs.reversed(0), attrs.reversed(1)};
      if (attrs.layout == 0) {
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
        r.kernel<Lstm>().record(shape, reversed, t);
        return;
      }
      BatchMajorLstm batch_major(r, s);
      LstmTensors t{batch_major.input(kX),
                    &r.texture(kW),
                    &r.texture(kR),
                    optional_texture(kB),
                    batch_major.input(kInitialH),
                    batch_major.input(kInitialC),
                    optional_texture(kPeepholes),
                    batch_major.output(0, wanted[0]),
                    batch_major.output(1, wanted[1]),
                    batch_major.output(2, wanted[2])};
      r.kernel<Lstm>().record(shape, reversed, t);
      batch_major.finish();
    };
  };
}

// Every batch entry's sequence length, checked by the definition (an error naming the node for
// one outside [0, seq]).
std::vector<int64_t> entry_lengths(OpRecorder& r, const NodeRef& node, std::vector<Tensor> inputs,
                                   const recurrent::RecurrentShape& s) {
  if (r.has_input(recurrent::kSequenceLens))
    inputs[recurrent::kSequenceLens] = r.host(recurrent::kSequenceLens);
  std::vector<int64_t> lengths(static_cast<size_t>(s.batch));
  for (int64_t b = 0; b < s.batch; ++b)
    lengths[static_cast<size_t>(b)] = recurrent::sequence_length({*node.node, inputs}, s, b);
  return lengths;
}

OpFactory rnn_or_gru_factory(RecurrentCell cell) {
  return [cell](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    using namespace recurrent;
    // Every input but sequence_lens (integers, a host value) is float data.
    if (!float_inputs(q, reason, kX, kSequenceLens) || !float_inputs(q, reason, kInitialH)) {
      return nullptr;
    }
    const bool linear_before_reset = cell == RecurrentCell::kGru && gru_linear_before_reset(q.info);
    const CellSpec spec =
        cell == RecurrentCell::kGru ? gru_cell_spec(linear_before_reset) : rnn_cell_spec();
    RecurrentAttributes attrs;
    if (!attributes_accepted([&] { attrs = parse_recurrent_attributes(q.info, spec); }, reason))
      return nullptr;
    const bool y_wanted = q.info.has_output(0), y_h_wanted = q.info.has_output(1);
    return [cell, spec, attrs, linear_before_reset, y_wanted, y_h_wanted,
            node = NodeRef(q.info)](OpRecorder& r) {
      const std::vector<Tensor> inputs = run_inputs(r);
      const RecurrentShape s = check_inputs({*node.node, inputs}, attrs, spec);
      const std::vector<int64_t> lengths = entry_lengths(r, node, inputs, s);
      if (s.seq == 0 || s.batch == 0 || s.hidden == 0 || s.input == 0)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       node.node->op_type + " with an empty dimension runs on the CPU");
      if (r.dtype(kX) != DataType::Float32)
        throw RunOnCpu(RunTimeCause::InputKind, "not a float32 input");
      auto optional_texture = [&](size_t k) { return r.has_input(k) ? &r.texture(k) : nullptr; };
      const RecurrentTensors t{&r.texture(kX),
                               &r.texture(kW),
                               &r.texture(kR),
                               optional_texture(kB),
                               optional_texture(kInitialH),
                               y_wanted ? &r.output(0, s.y_shape()) : nullptr,
                               y_h_wanted ? &r.output(1, s.state_shape()) : nullptr};
      RecurrentProblem p;
      p.cell = cell;
      p.shape = s;
      p.reverse = attrs.direction == Direction::kReverse;
      p.has_clip = attrs.has_clip;
      p.clip = attrs.clip;
      p.linear_before_reset = linear_before_reset;
      p.activations = attrs.activations;
      r.kernel<RecurrentDraws>().record(p, lengths, t);
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(recurrent);
void register_recurrent_ops(OpTable& t) {
  t.add("LSTM", lstm_factory());
  t.add("RNN", rnn_or_gru_factory(RecurrentCell::kRnn));
  t.add("GRU", rnn_or_gru_factory(RecurrentCell::kGru));
}

}  // namespace kiln::gpu_pixel
