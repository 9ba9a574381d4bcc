// RNN, GRU and LSTM's one definition: input positions, attributes (activations included) and
// the input checks that resolve a run's sizes, shared by the CPU kernels (ops/recurrent_*) and
// the GPU backends' LSTM.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/tensor.h"
#include "opdefs/node_inputs.h"

namespace kiln {
class NodeInfo;
}

namespace kiln::recurrent {

enum class ActivationKind : uint8_t {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,           // alpha * x + beta
  kLeakyRelu,        // x < 0 ? alpha * x : x
  kThresholdedRelu,  // x > alpha ? x : 0
  kScaledTanh,       // alpha * tanh(beta * x)
  kHardSigmoid,      // clamp(alpha * x + beta, 0, 1)
  kElu,              // x < 0 ? alpha * (e^x - 1) : x
  kSoftsign,         // x / (1 + |x|)
  kSoftplus,         // log(1 + e^x)
};

struct Activation {
  ActivationKind kind = ActivationKind::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// Reads the `activations`, `activation_alpha` and `activation_beta` attributes of a node whose
// cell uses `defaults.size()` functions per direction. Returns them for every direction, in
// order (forward's first). A list naming the functions of one direction only is used for both
// directions of a bidirectional node. The alpha and beta lists are consumed in order by the
// functions that take parameters; a function past their end gets its usual default.
std::vector<Activation> parse_activations(const NodeInfo& info,
                                          const std::vector<std::string>& defaults,
                                          int64_t num_directions);

// Input positions shared by the three ops (initial_c and P are LSTM's only).
enum InputIndex : size_t {
  kX = 0,
  kW = 1,
  kR = 2,
  kB = 3,
  kSequenceLens = 4,
  kInitialH = 5,
  kInitialC = 6,
  kPeepholes = 7,
};

enum class Direction : uint8_t { kForward, kReverse, kBidirectional };

// A range of gates (in units of hidden_size rows of W and R) that one GEMM covers.
struct GateBlock {
  int64_t first_gate = 0;
  int64_t gate_count = 0;
};

// The most GEMMs with Rᵀ a cell does per step (GRU: update and reset gates, then the candidate).
inline constexpr size_t kMaxRecurrentBlocks = 2;

// What a cell type tells the shared code about itself.
struct CellSpec {
  int64_t gates = 1;                        // rows of W and R per direction: gates * hidden
  std::vector<std::string> activations;     // default activation names of one direction
  std::vector<GateBlock> recurrent_blocks;  // how the per-step product with Rᵀ is split
  bool has_cell_state = false;              // LSTM: initial_c, P and output Y_c
};

struct RecurrentAttributes {
  Direction direction = Direction::kForward;
  int64_t num_directions = 1;
  int64_t hidden_size = -1;  // -1 when absent: taken from R
  int64_t layout = 0;        // 0: X is [seq, batch, input]; 1: [batch, seq, input]
  bool has_clip = false;
  float clip = 0.0f;  // pre-activation gate values are clamped to [-clip, clip]
  int64_t activations_per_direction = 1;
  std::vector<Activation> activations;  // forward direction's first

  const Activation& activation(int64_t direction, int64_t index) const {
    return activations[static_cast<size_t>(direction * activations_per_direction + index)];
  }
  bool reversed(int64_t direction) const {
    return direction == 1 || this->direction == Direction::kReverse;
  }
};

// LSTM's cell (lstm.cpp), for the GPU backends that parse and check an LSTM node as the CPU does.
CellSpec lstm_cell_spec();
CellSpec gru_cell_spec(bool linear_before_reset);
CellSpec rnn_cell_spec();

// GRU's linear_before_reset attribute: whether the reset gate scales H·Rhᵀ + Rbh (1) or H (0).
bool gru_linear_before_reset(const NodeInfo& info);

RecurrentAttributes parse_recurrent_attributes(const NodeInfo& info, const CellSpec& spec);

// The sizes of one run and where each (time, direction, batch) vector lives in X, Y and the
// state tensors, for either layout.
struct RecurrentShape {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1, gates = 1, layout = 0;

  int64_t gate_width() const { return gates * hidden; }
  // Row of X (and of the input projection) that holds time step t of batch entry b.
  int64_t x_row(int64_t t, int64_t b) const { return layout == 0 ? t * batch + b : b * seq + t; }
  // Offset of Y's hidden vector for (t, direction d, b).
  int64_t y_offset(int64_t t, int64_t d, int64_t b) const {
    return (layout == 0 ? (t * directions + d) * batch + b : (b * seq + t) * directions + d) *
           hidden;
  }
  // Offset of the hidden vector for (direction d, b) in Y_h, Y_c, initial_h and initial_c.
  int64_t state_offset(int64_t d, int64_t b) const {
    return (layout == 0 ? d * batch + b : b * directions + d) * hidden;
  }
  Shape y_shape() const {
    return Shape(std::span<const int64_t>(y_dims(layout, seq, directions, batch, hidden)));
  }
  Shape state_shape() const {
    return Shape(std::span<const int64_t>(state_dims(layout, directions, batch, hidden)));
  }

  // Y's and the states' dims for either layout, as extents or as shape inference's Dims.
  template <class D>
  static std::array<D, 4> y_dims(int64_t layout, D seq, D directions, D batch, D hidden) {
    return layout == 0 ? std::array<D, 4>{seq, directions, batch, hidden}
                       : std::array<D, 4>{batch, seq, directions, hidden};
  }
  template <class D>
  static std::array<D, 3> state_dims(int64_t layout, D directions, D batch, D hidden) {
    return layout == 0 ? std::array<D, 3>{directions, batch, hidden}
                       : std::array<D, 3>{batch, directions, hidden};
  }
};

// Checks the inputs' types and shapes against each other and the attributes.
RecurrentShape check_inputs(const NodeInputs& ctx, const RecurrentAttributes& attrs,
                            const CellSpec& spec);

// Batch entry b's sequence length: sequence_lens[b] (its host values), or the sequence length
// when the node has none. Fails when it lies outside [0, seq].
int64_t sequence_length(const NodeInputs& ctx, const RecurrentShape& shape, int64_t b);

}  // namespace kiln::recurrent
