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
#include "kernels/op_context.h"
#include "kernels/op_registry.h"
#include "kiln/tensor.h"
#include "opdefs/recurrent.h"
#include "ops/recurrent_activation.h"

namespace kiln {

CpuKernel make_rnn(const NodeInfo& info);
CpuKernel make_gru(const NodeInfo& info);
CpuKernel make_lstm(const NodeInfo& info);

namespace recurrent {

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
