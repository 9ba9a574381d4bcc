// What RNN, GRU and LSTM share: attribute parsing, input checks, the layout of X, Y and the
// states, weights packed at load time, per-thread scratch memory, and the matrix products.
//
// All three run the same way (recurrent_driver.h): the input projection X·Wᵀ + biases of every
// time step at once in one GEMM, then per step one GEMM of the hidden state with Rᵀ and the
// cell's element-wise gate math. float16 and bfloat16 compute in float, double in double.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/gemm.h"
#include "kiln/tensor.h"
#include "ops/op_context.h"
#include "ops/op_registry.h"
#include "ops/recurrent_activation.h"

namespace kiln {

CpuKernel make_rnn(const NodeInfo& info);
CpuKernel make_gru(const NodeInfo& info);
CpuKernel make_lstm(const NodeInfo& info);

namespace recurrent {

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

// LSTM's cell: gates i, o, f, c, activations f=Sigmoid, g=Tanh, h=Tanh, and a cell state (shared
// with the GPU backends, which run the same node).
CellSpec lstm_cell_spec();

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
    return layout == 0 ? Shape{seq, directions, batch, hidden}
                       : Shape{batch, seq, directions, hidden};
  }
  Shape state_shape() const {
    return layout == 0 ? Shape{directions, batch, hidden} : Shape{batch, directions, hidden};
  }
};

// Checks the inputs' types and shapes against each other and the attributes.
RecurrentShape check_inputs(const OpContext& ctx, const RecurrentAttributes& attrs,
                            const CellSpec& spec);

// The sequence lengths (all `seq` when the input is absent); kiln::Error for values outside
// [0, seq]. The returned storage belongs to the calling thread and is reused by its next call.
const int64_t* read_sequence_lengths(const OpContext& ctx, const RecurrentShape& shape);

// W and R per direction, transposed and packed for the GEMM once at load time when they are
// constants of a float type. Empty vectors for an operand that is not constant.
struct PackedWeights {
  std::vector<cpu::PackedB> w;  // [direction]: W[d]ᵀ, input x gate_width
  std::vector<cpu::PackedB> r;  // [direction * blocks + block]: R[d] rows of the block, ᵀ
};
std::shared_ptr<const PackedWeights> pack_constant_weights(const NodeInfo& info,
                                                           const RecurrentAttributes& attrs,
                                                           const CellSpec& spec);

// The right operand of out = A·Wᵀ: `rows` rows of `cols` values (row-major, row stride
// `cols`), or the same already packed.
template <class C>
struct TransposedWeights {
  const C* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  const cpu::PackedB* packed = nullptr;
};

// out[m, :rows] = A[m, :cols]·Wᵀ (+ bias[:rows] when not null) for m < M.
void multiply_transposed(int64_t M, const float* A, int64_t lda, const TransposedWeights<float>& w,
                         const float* bias, float* out, int64_t ldc);
void multiply_transposed(int64_t M, const double* A, int64_t lda,
                         const TransposedWeights<double>& w, const double* bias, double* out,
                         int64_t ldc);

// x = clamp(x, -clip, clip) when the node has a clip attribute.
template <class C>
void clip_gate(const RecurrentAttributes& attrs, C* x, int64_t n) {
  if (!attrs.has_clip) return;
  const C hi = attrs.clip, lo = -hi;
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

// Per-thread scratch buffers that grow to the largest size seen and are then reused, so that
// steady-state runs do not allocate. Each slot is one buffer; a kernel never runs nested in
// itself on one thread, so the slots are free whenever a kernel starts.
enum class Scratch : uint8_t {
  kX,
  kW,
  kR,
  kB,
  kPeepholes,
  kInitialH,
  kInitialC,
  kProjection,  // X·Wᵀ + bias for every step of one direction
  kGates,       // [batch, gate_width]: one step's gate values
  kHidden,      // [batch, hidden]
  kCell,        // [batch, hidden]
  kExtra,       // [batch, hidden]: a cell's own use (GRU's reset hidden state)
  kBias,        // gate_width
  kRows,        // per batch entry: the projection row of the current step
  kLengths,     // per batch entry: its sequence length
  kCount,
};
template <class C>
C* scratch(Scratch slot, int64_t n) {
  thread_local std::vector<C> buffers[static_cast<size_t>(Scratch::kCount)];
  std::vector<C>& buffer = buffers[static_cast<size_t>(slot)];
  if (buffer.size() < static_cast<size_t>(n)) buffer.resize(static_cast<size_t>(n));
  return buffer.data();
}

}  // namespace recurrent
}  // namespace kiln
