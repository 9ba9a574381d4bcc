#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// One RNN or GRU node: the sizes, optional inputs and outputs, and attributes it sets.
struct RecurrentCase {
  std::string name;
  std::string op = "RNN";
  std::string direction = "forward";
  int64_t seq = 4, batch = 2, input = 3, hidden = 5;
  int64_t layout = 0;
  bool bias = false, initial_h = false;
  std::vector<int64_t> lengths;  // sequence_lens when not empty
  bool lengths_int64 = false;
  std::vector<std::string> activations;  // absent when empty
  std::vector<float> alpha, beta;
  float clip = -1.0f;                // absent when negative
  int64_t linear_before_reset = -1;  // absent when negative
  int outputs = 2;
  bool y = true;
  bool constant_weights = true;  // W and R initializers, else graph inputs
};

OpTest make_recurrent(const RecurrentCase& c, unsigned seed) {
  const int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  const int64_t width = (c.op == "GRU" ? 3 : 1) * c.hidden;
  const Shape x = c.layout == 0 ? Shape{c.seq, c.batch, c.input} : Shape{c.batch, c.seq, c.input};
  const Shape state =
      c.layout == 0 ? Shape{dirs, c.batch, c.hidden} : Shape{c.batch, dirs, c.hidden};
  Tensor lengths;
  if (!c.lengths.empty()) {
    if (c.lengths_int64) {
      lengths = Tensor::from_data<int64_t>({c.batch}, c.lengths);
    } else {
      lengths = Tensor::from_data<int32_t>(
          {c.batch}, std::vector<int32_t>(c.lengths.begin(), c.lengths.end()));
    }
  }
  OpTest t(c.op);
  t.input(random_f32(x, seed))
      .input(random_f32({dirs, width, c.input}, seed + 1, -0.6f, 0.6f))
      .input(random_f32({dirs, width, c.hidden}, seed + 2, -0.6f, 0.6f))
      .input(c.bias ? random_f32({dirs, 2 * width}, seed + 3, -0.5f, 0.5f) : Tensor())
      .input(lengths)
      .input(c.initial_h ? random_f32(state, seed + 4, -0.8f, 0.8f) : Tensor())
      .attr("hidden_size", c.hidden)
      .attr("direction", c.direction)
      .outputs(c.outputs);
  if (c.constant_weights) t.constant_input(1).constant_input(2);
  if (c.layout != 0) t.attr("layout", c.layout);
  if (!c.activations.empty()) t.attr("activations", c.activations);
  if (!c.alpha.empty()) t.attr("activation_alpha", c.alpha);
  if (!c.beta.empty()) t.attr("activation_beta", c.beta);
  if (c.clip >= 0.0f) t.attr("clip", c.clip);
  if (c.linear_before_reset >= 0) t.attr("linear_before_reset", c.linear_before_reset);
  if (c.bias) t.constant_input(3);
  if (!c.lengths.empty()) t.constant_input(4);
  if (!c.y) t.absent_output(0);
  return t;
}

// RNN and GRU on both GPU backends: every direction and layout, initial_h, B, sequence lengths
// shorter than the sequence (zero included) in either index type, every activation function
// with and without its parameters, clip, GRU's linear_before_reset both ways, Y_h alone.
std::vector<RecurrentCase> recurrent_cases() {
  return {
      {.name = "RNN_forward_defaults", .bias = false, .outputs = 1},
      {.name = "RNN_forward_bias_initial_h", .bias = true, .initial_h = true},
      {.name = "RNN_reverse_relu", .direction = "reverse", .bias = true, .activations = {"Relu"}},
      {.name = "RNN_bidirectional_layout1",
       .direction = "bidirectional",
       .seq = 3,
       .batch = 3,
       .layout = 1,
       .bias = true,
       .initial_h = true,
       .activations = {"LeakyRelu", "Tanh"},
       .alpha = {0.3f}},
      {.name = "RNN_bidirectional_sequence_lens",
       .direction = "bidirectional",
       .seq = 5,
       .batch = 3,
       .bias = true,
       .initial_h = true,
       .lengths = {5, 2, 0}},
      {.name = "RNN_clip_affine_elu",
       .direction = "bidirectional",
       .bias = true,
       .activations = {"Affine", "Elu"},
       .alpha = {1.5f, 0.7f},
       .beta = {0.25f},
       .clip = 0.8f},
      {.name = "RNN_layout1_sequence_lens_int64",
       .direction = "reverse",
       .seq = 4,
       .batch = 3,
       .layout = 1,
       .initial_h = true,
       .lengths = {1, 4, 3},
       .lengths_int64 = true,
       .activations = {"Softplus"}},
      {.name = "GRU_forward_defaults", .op = "GRU", .outputs = 1},
      {.name = "GRU_forward_bias_initial_h", .op = "GRU", .bias = true, .initial_h = true},
      {.name = "GRU_one_step_weights_as_inputs",
       .op = "GRU",
       .seq = 1,
       .batch = 3,
       .input = 2,
       .y = false,
       .constant_weights = false},
      {.name = "GRU_linear_before_reset",
       .op = "GRU",
       .direction = "bidirectional",
       .bias = true,
       .initial_h = true,
       .linear_before_reset = 1},
      {.name = "GRU_reverse_layout1_sequence_lens",
       .op = "GRU",
       .direction = "reverse",
       .seq = 5,
       .batch = 3,
       .layout = 1,
       .bias = true,
       .initial_h = true,
       .lengths = {3, 0, 5},
       .lengths_int64 = true},
      {.name = "GRU_bidirectional_sequence_lens_linear_before_reset",
       .op = "GRU",
       .direction = "bidirectional",
       .seq = 4,
       .batch = 3,
       .bias = true,
       .lengths = {2, 4, 1},
       .linear_before_reset = 1},
      {.name = "GRU_activations_clip",
       .op = "GRU",
       .direction = "bidirectional",
       .bias = true,
       .initial_h = true,
       .activations = {"HardSigmoid", "ScaledTanh", "Sigmoid", "Softsign"},
       .alpha = {0.3f, 1.2f},
       .beta = {0.4f, 0.9f},
       .clip = 1.5f},
      {.name = "GRU_thresholded_relu_defaults",
       .op = "GRU",
       .bias = true,
       .activations = {"Sigmoid", "ThresholdedRelu"}},
      {.name = "GRU_states_only",
       .op = "GRU",
       .direction = "bidirectional",
       .bias = true,
       .initial_h = true,
       .y = false},
      {.name = "GRU_hidden16",
       .op = "GRU",
       .direction = "bidirectional",
       .seq = 3,
       .batch = 2,
       .input = 8,
       .hidden = 16,
       .bias = true,
       .initial_h = true},
  };
}

void add_recurrent_cases(std::vector<OpCase>& c) {
  const std::vector<RecurrentCase> cases = recurrent_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    c.push_back({cases[i].name, [rc = cases[i], seed = static_cast<unsigned>(700 + 10 * i)] {
                   return make_recurrent(rc, seed);
                 }});
  }
}

REGISTER_OP_CASES(add_recurrent_cases);

// A sequence length outside [0, seq] is the node's error on the GPU as on the CPU.
void expect_sequence_length_error(Backend backend, const char* backend_name) {
  for (const char* op : {"RNN", "GRU"}) {
    RecurrentCase c{.name = "bad", .op = op, .seq = 3, .lengths = {3, 4}};
    const OpTest test = make_recurrent(c, 1);
    std::optional<Worker> worker;
    try {
      worker.emplace(test.model(), backend);
    } catch (const Error& e) {
      if (!is_no_device_error(e)) throw;
      GTEST_SKIP() << backend_name << " is not available here: " << e.what();
    }
    try {
      test.run(*worker);
      ADD_FAILURE() << op << " ran with sequence_lens[1] = 4 > seq = 3";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("sequence_lens[1] = 4"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuComputeRecurrent, SequenceLengthBeyondTheSequenceIsAnError) {
  expect_sequence_length_error(Backend::GpuCompute, "gpu-compute");
}

TEST(GpuPixelRecurrent, SequenceLengthBeyondTheSequenceIsAnError) {
  expect_sequence_length_error(Backend::GpuPixel, "gpu-pixel");
}

}  // namespace
}  // namespace kiln::testing
