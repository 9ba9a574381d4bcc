// RNN, GRU and LSTM on the GPU: the input projection of every step in one MatMul-kernel
// dispatch, then per time step one step kernel recording for all directions.
// LSTM (lstm.h) takes a subset: float32, either layout (1 through transposes), the default
// activations, no clip, no input_forget, and sequence lengths (when given) that all equal the
// sequence length. RNN and GRU (recurrent_step.h) take every float32 node: any direction, layout,
// activations, clip and sequence lengths. Other nodes stay on the CPU with a reason.
#include <string>

#include "backends/gpu_common/device_lstm.h"
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/lstm.h"
#include "backends/gpu_compute/matmul.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/recurrent_step.h"
#include "backends/gpu_compute/region_copy.h"
#include "core/tensor_impl.h"
#include "opdefs/recurrent.h"

namespace kiln::gpu_compute {
namespace {

namespace rc = recurrent;

// The run's sizes, checked by the LSTM definition (opdefs/recurrent.h) as the CPU kernel checks
// them: inputs it rejects, and empty tensors, run on the CPU.
LstmProblem lstm_problem(const OpRecorder& r, const rc::RecurrentAttributes& a,
                         const NodeRef& node) {
  const std::vector<Tensor> inputs = run_inputs(r);
  const rc::RecurrentShape s = rc::check_inputs({*node.node, inputs}, a, rc::lstm_cell_spec());
  LstmProblem p;
  p.seq = s.seq;
  p.batch = s.batch;
  p.hidden = s.hidden;
  p.directions = s.directions;
  p.reverse = a.direction == rc::Direction::kReverse;
  p.has_bias = r.has_input(rc::kB);
  p.has_initial_h = r.has_input(rc::kInitialH);
  p.has_initial_c = r.has_input(rc::kInitialC);
  p.has_peepholes = r.has_input(rc::kPeepholes);
  if (p.seq == 0 || p.batch == 0 || p.hidden == 0 || s.input == 0)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                   "LSTM with an empty dimension runs on the CPU");
  return p;
}

// The step kernel runs every batch entry for the whole sequence: shorter sequences (and values
// computed on the device, which cannot be checked here) go to the CPU.
void check_full_sequences(const OpRecorder& r, int64_t seq) {
  if (!r.has_input(rc::kSequenceLens)) return;
  const Tensor& lengths = r.input(rc::kSequenceLens);
  if (lengths.impl()->device)
    throw RunOnCpu(RunTimeCause::InputValues,
                   "LSTM sequence_lens computed on the device cannot be checked");
  for (int64_t b = 0; b < lengths.element_count(); ++b) {
    const int64_t n = lengths.dtype() == DataType::Int32 ? lengths.data<int32_t>()[b]
                                                         : lengths.data<int64_t>()[b];
    if (n != seq)
      throw RunOnCpu(RunTimeCause::InputValues,
                     "LSTM sequence_lens shorter than the sequence runs on the CPU");
  }
}

// Layout 1 (batch-major X, initial states, Y, Y_h and Y_c) runs the layout-0 kernels between
// transposes: the inputs' first two dims swap into scratch here, the outputs' back below.
const Buffer& sequence_major(OpRecorder& r, size_t input, bool batch_major) {
  const Buffer& in = r.buffer(input);
  if (!batch_major) return in;
  const Shape& shape = r.shape(input);
  const Buffer& out = r.scratch(static_cast<size_t>(shape.element_count()) * sizeof(float));
  const int64_t swap_leading[] = {1, 0, 2};
  r.kernel<RegionCopy>().transpose(r.cmd(), r.arena(), DataType::Float32, in, shape, swap_leading,
                                   out);
  return out;
}

RecordFn lstm(rc::RecurrentAttributes attrs, NodeRef node) {
  return [attrs = std::move(attrs), node](OpRecorder& r) {
    LstmProblem p = lstm_problem(r, attrs, node);
    check_full_sequences(r, p.seq);
    const bool batch_major = attrs.layout == 1;
    const int64_t input = r.shape(rc::kX)[2], gates = 4 * p.hidden;
    const int64_t rows = p.seq * p.batch;
    const Shape state{p.directions, p.batch, p.hidden};
    const Shape y_shape{p.seq, p.directions, p.batch, p.hidden};
    const Shape batch_major_state{p.batch, p.directions, p.hidden};
    auto float_scratch = [&r](const Shape& shape) -> const Buffer& {
      return r.scratch(static_cast<size_t>(shape.element_count()) * sizeof(float));
    };

    // X viewed as [seq * batch, input] times W viewed as [directions * 4 * hidden, input]ᵀ.
    const MatMulProblem projection_problem = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
      return gemm_problem({rows, input}, {p.directions * gates, input}, false, true);
    });
    const Buffer& projection =
        r.scratch(static_cast<size_t>(rows * p.directions * gates) * sizeof(float));
    LstmStepBuffers b;
    b.projection = &projection;
    b.r = &r.buffer(rc::kR);
    if (p.has_bias) b.bias = &r.buffer(rc::kB);
    if (p.has_peepholes) b.peepholes = &r.buffer(rc::kPeepholes);
    const Buffer& x = sequence_major(r, rc::kX, batch_major);
    if (p.has_initial_h) b.initial_h = &sequence_major(r, rc::kInitialH, batch_major);
    const Buffer& w = r.buffer(rc::kW);
    const Buffer* initial_c = p.has_initial_c ? &r.buffer(rc::kInitialC) : nullptr;
    p.writes_final_h = r.num_outputs() > 1;
    const bool writes_final_c = r.num_outputs() > 2;
    if (batch_major) {
      // The kernels write sequence-major scratch, transposed into the outputs at the end.
      b.y = &float_scratch(y_shape);
      if (p.writes_final_h) b.final_h = &float_scratch(state);
      b.cell = &float_scratch(state);
    } else {
      b.y = &r.output(0, DataType::Float32, y_shape);
      if (p.writes_final_h) b.final_h = &r.output(1, DataType::Float32, state);
      // Y_c, when asked for, is the running cell state itself.
      b.cell = writes_final_c ? &r.output(2, DataType::Float32, state) : &float_scratch(state);
    }

    r.add_work(static_cast<uint64_t>(rows * p.directions * gates) *
               static_cast<uint64_t>(input + p.hidden));
    r.kernel<MatMul>().record(r.cmd(), r.arena(), projection_problem, x, w, projection);
    const RegionCopy& copy = r.kernel<RegionCopy>();
    if (initial_c) {  // the step kernel reads the cell state from b.cell
      const Region whole{{state.element_count()}, 0, {1}, 0, {1}};
      const int64_t swap_leading[] = {1, 0, 2};
      const Region region = batch_major ? transpose_region(batch_major_state, swap_leading) : whole;
      copy.record(r.cmd(), r.arena(), region, DataType::Float32, *initial_c, *b.cell);
    }
    for (int64_t step = 0; step < p.seq; ++step)
      r.kernel<LstmStep>().record_step(r.cmd(), r.arena(), p, b, step);
    if (!batch_major) return;
    // [seq, directions, batch, hidden] to [batch, seq, directions, hidden]; the states'
    // [directions, batch, hidden] to [batch, directions, hidden].
    const int64_t y_perm[] = {2, 0, 1, 3}, state_perm[] = {1, 0, 2};
    const Buffer& y = r.output(0, DataType::Float32, {p.batch, p.seq, p.directions, p.hidden});
    copy.transpose(r.cmd(), r.arena(), DataType::Float32, *b.y, y_shape, y_perm, y);
    if (p.writes_final_h) {
      const Buffer& y_h = r.output(1, DataType::Float32, batch_major_state);
      copy.transpose(r.cmd(), r.arena(), DataType::Float32, *b.final_h, state, state_perm, y_h);
    }
    if (writes_final_c) {
      const Buffer& y_c = r.output(2, DataType::Float32, batch_major_state);
      copy.transpose(r.cmd(), r.arena(), DataType::Float32, *b.cell, state, state_perm, y_c);
    }
  };
}

// RNN or GRU: the sizes and optional operands of a run, checked by the definition
// (opdefs/recurrent.h) as the CPU kernel checks them, sequence lengths included.
RecurrentStepProblem rnn_or_gru_problem(const OpRecorder& r, RecurrentCell cell,
                                        const rc::RecurrentAttributes& a, const rc::CellSpec& spec,
                                        const NodeRef& node) {
  const std::vector<Tensor> inputs = run_inputs(r);
  const NodeInputs checked{*node.node, inputs};
  const rc::RecurrentShape s = rc::check_inputs(checked, a, spec);
  RecurrentStepProblem p;
  p.cell = cell;
  p.seq = s.seq;
  p.batch = s.batch;
  p.hidden = s.hidden;
  p.directions = s.directions;
  p.layout = s.layout;
  p.reverse = a.direction == rc::Direction::kReverse;
  p.has_bias = r.has_input(rc::kB);
  p.has_initial_h = r.has_input(rc::kInitialH);
  p.has_clip = a.has_clip;
  p.clip = a.clip;
  p.activations = a.activations;
  if (p.seq == 0 || p.batch == 0 || p.hidden == 0 || s.input == 0)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                   node.node->op_type + " with an empty dimension runs on the CPU");
  p.has_lengths = r.has_input(rc::kSequenceLens);
  if (p.has_lengths) {
    const Tensor& lengths = r.input(rc::kSequenceLens);
    // The shader trusts the lengths: values computed on the device cannot be checked here.
    if (lengths.impl()->device)
      throw RunOnCpu(
          RunTimeCause::InputValues,
          node.node->op_type + " sequence_lens computed on the device cannot be checked");
    p.lengths_int64 = lengths.dtype() == DataType::Int64;
    std::vector<Tensor> host = inputs;  // the lengths' values, noted for a replay
    host[rc::kSequenceLens] = lengths;
    for (int64_t b = 0; b < p.batch; ++b) rc::sequence_length({*node.node, host}, s, b);
  }
  return p;
}

RecordFn rnn_or_gru(RecurrentCell cell, rc::RecurrentAttributes attrs, rc::CellSpec spec,
                    bool linear_before_reset, NodeRef node) {
  return [cell, attrs = std::move(attrs), spec = std::move(spec), linear_before_reset,
          node](OpRecorder& r) {
    RecurrentStepProblem p = rnn_or_gru_problem(r, cell, attrs, spec, node);
    p.linear_before_reset = linear_before_reset;
    const int64_t input = r.shape(rc::kX)[2], width = p.gates() * p.hidden;
    const int64_t rows = p.seq * p.batch;
    const rc::RecurrentShape shape{.seq = p.seq,
                                   .batch = p.batch,
                                   .input = input,
                                   .hidden = p.hidden,
                                   .directions = p.directions,
                                   .gates = p.gates(),
                                   .layout = p.layout};

    // X viewed as [rows, input] (in X's own order, either layout) times W viewed as
    // [directions * width, input]ᵀ.
    const MatMulProblem projection_problem = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
      return gemm_problem({rows, input}, {p.directions * width, input}, false, true);
    });
    const Buffer& projection =
        r.scratch(static_cast<size_t>(rows * p.directions * width) * sizeof(float));
    RecurrentStepBuffers b;
    b.projection = &projection;
    b.r = &r.buffer(rc::kR);
    if (p.has_bias) b.bias = &r.buffer(rc::kB);
    if (p.has_lengths) b.lengths = &r.buffer(rc::kSequenceLens);
    if (p.has_initial_h) b.initial_h = &r.buffer(rc::kInitialH);
    const Buffer& x = r.buffer(rc::kX);
    const Buffer& w = r.buffer(rc::kW);
    b.y = &r.output(0, DataType::Float32, shape.y_shape());
    p.writes_final_h = r.num_outputs() > 1;
    if (p.writes_final_h) b.final_h = &r.output(1, DataType::Float32, shape.state_shape());
    b.state = &r.scratch(static_cast<size_t>(p.state_elements()) * sizeof(float));

    r.add_work(static_cast<uint64_t>(rows * p.directions * width) *
               static_cast<uint64_t>(input + p.hidden));
    r.kernel<MatMul>().record(r.cmd(), r.arena(), projection_problem, x, w, projection);
    for (int64_t step = 0; step < p.seq; ++step)
      r.kernel<RecurrentStep>().record_step(r.cmd(), r.arena(), p, b, step);
  };
}

// RNN's and GRU's factory: float32 X, W, R, B and initial_h, int32 or int64 sequence_lens.
OpFactory rnn_or_gru_factory(RecurrentCell cell) {
  return [cell](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, rc::kX, rc::kSequenceLens) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, rc::kSequenceLens, 1) ||
        !inputs_are(q, {DataType::Float32}, reason, rc::kInitialH))
      return nullptr;
    const bool linear_before_reset =
        cell == RecurrentCell::kGru && rc::gru_linear_before_reset(q.info);
    rc::CellSpec spec =
        cell == RecurrentCell::kGru ? rc::gru_cell_spec(linear_before_reset) : rc::rnn_cell_spec();
    rc::RecurrentAttributes attrs;
    if (!attributes_accepted([&] { attrs = rc::parse_recurrent_attributes(q.info, spec); }, reason))
      return nullptr;
    return rnn_or_gru(cell, std::move(attrs), std::move(spec), linear_before_reset,
                      NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(recurrent);
void register_recurrent_ops(OpTable& t) {
  t.add("LSTM", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, rc::kX, rc::kSequenceLens) ||
        !inputs_are(q, {DataType::Int32, DataType::Int64}, reason, rc::kSequenceLens, 1) ||
        !inputs_are(q, {DataType::Float32}, reason, rc::kInitialH))
      return nullptr;
    rc::RecurrentAttributes attrs;
    if (!attributes_accepted(
            [&] { attrs = rc::parse_recurrent_attributes(q.info, rc::lstm_cell_spec()); }, reason))
      return nullptr;
    reason = lstm_outside_gpu_subset(q.info, attrs, /*batch_major=*/true);
    if (!reason.empty()) return nullptr;
    return lstm(std::move(attrs), NodeRef(q.info));
  });
  t.add("RNN", rnn_or_gru_factory(RecurrentCell::kRnn));
  t.add("GRU", rnn_or_gru_factory(RecurrentCell::kGru));
}

}  // namespace kiln::gpu_compute
