// The time loop that RNN, GRU and LSTM share. A cell type supplies the per-step math:
//
//   struct MyCell {
//     // The bias folded into the input projection: gate_width values from B[d] (2 * gate_width
//     // values: Wb then Rb), or nullptr when the node has no B.
//     template <class C> void input_bias(const C* b, int64_t gate_width, C* out) const;
//     // One time step: updates step.hidden (and step.cell) for the active batch entries.
//     template <class C> void step(const StepData<C>& step) const;
//   };
#pragma once

#include <algorithm>
#include <array>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "ops/recurrent_common.h"

namespace kiln::recurrent {

// Everything one time step of one direction works on. Buffers hold compute-type values.
template <class C>
struct StepData {
  const RecurrentShape& shape;
  const RecurrentAttributes& attrs;
  int64_t direction;
  // Per batch entry: this step's row of the input projection (X·Wᵀ + input bias, gate_width
  // values), or nullptr when the step is past the entry's sequence length.
  const C* const* projected;
  C* gates;   // [batch, gate_width] scratch for the recurrent product
  C* hidden;  // [batch, hidden]: the previous hidden state in, the new one out
  C* cell;    // [batch, hidden]: LSTM's cell state, likewise
  C* extra;   // [batch, hidden] scratch for the cell's own use
  const TransposedWeights<C>* recurrent;  // this direction's Rᵀ, one per CellSpec block
  const C* bias;                          // B[d] (Wb then Rb), or nullptr
  const C* peepholes;                     // P[d] (LSTM), or nullptr

  // gates[:, block columns] = hidden-like A (batch x hidden)·Rᵀ of the block, for every row.
  void recurrent_product(size_t block, const C* a, int64_t column) const {
    multiply_transposed(shape.batch, a, shape.hidden, recurrent[block], nullptr, gates + column,
                        shape.gate_width());
  }
};

// Calls row(b) for each batch entry still inside its sequence; spread over threads when the
// batch is large enough to pay for it.
template <class C, class Row>
void for_each_active_row(const StepData<C>& step, Row&& row) {
  const int64_t work_per_row = std::max<int64_t>(1, 8 * step.shape.gate_width());
  parallel_for(step.shape.batch, std::max<int64_t>(1, 16384 / work_per_row),
               [&](int64_t begin, int64_t end) {
                 for (int64_t b = begin; b < end; ++b) {
                   if (step.projected[b]) row(b);
                 }
               });
}

// Wb + Rb, the bias of every gate whose recurrent bias is simply added.
template <class C>
void sum_input_and_recurrent_bias(const C* b, int64_t gate_width, C* out) {
  for (int64_t i = 0; i < gate_width; ++i) out[i] = b ? b[i] + b[gate_width + i] : C(0);
}

namespace detail {

template <class T>
inline constexpr bool is_recurrent_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, Float16> ||
    std::is_same_v<T, BFloat16>;

// The input's values in the compute type: its own data when the types agree, else a copy.
template <class T, class C>
const C* compute_values(const OpContext& ctx, size_t index, Scratch slot) {
  if (!ctx.has_input(index)) return nullptr;
  const Tensor& t = ctx.input(index);
  if constexpr (std::is_same_v<T, C>) {
    return t.data<T>();
  } else {
    const T* p = t.data<T>();
    const int64_t n = t.element_count();
    C* out = scratch<C>(slot, n);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<C>(static_cast<float>(p[i]));
    return out;
  }
}

template <class T, class C>
void store(T* dst, const C* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
}

// One direction's [batch, hidden] state from an initial-state input (zeros when absent).
template <class C>
void load_state(const C* initial, const RecurrentShape& shape, int64_t d, C* state) {
  for (int64_t b = 0; b < shape.batch; ++b) {
    C* row = state + b * shape.hidden;
    if (initial) {
      std::copy_n(initial + shape.state_offset(d, b), shape.hidden, row);
    } else {
      std::fill_n(row, shape.hidden, C(0));
    }
  }
}

template <class T, class C, class Cell>
void run_typed(OpContext& ctx, const RecurrentAttributes& attrs, const CellSpec& spec,
               const PackedWeights& packed, const Cell& cell, const RecurrentShape& shape,
               const int64_t* lengths) {
  const DataType dtype = ctx.input(kX).dtype();
  T* y = ctx.wants_output(0)
             ? ctx.allocate_output(0, dtype, shape.y_shape()).template mutable_data<T>()
             : nullptr;
  T* y_h = ctx.wants_output(1)
               ? ctx.allocate_output(1, dtype, shape.state_shape()).template mutable_data<T>()
               : nullptr;
  T* y_c = spec.has_cell_state && ctx.wants_output(2)
               ? ctx.allocate_output(2, dtype, shape.state_shape()).template mutable_data<T>()
               : nullptr;
  if (shape.batch == 0 || shape.hidden == 0) return;  // every output is empty

  const int64_t H = shape.hidden, width = shape.gate_width(), steps = shape.seq;
  const size_t blocks = spec.recurrent_blocks.size();
  const bool w_packed = !packed.w.empty();
  const bool r_packed = !packed.r.empty();
  const C* x = compute_values<T, C>(ctx, kX, Scratch::kX);
  const C* w = w_packed ? nullptr : compute_values<T, C>(ctx, kW, Scratch::kW);
  const C* r = r_packed ? nullptr : compute_values<T, C>(ctx, kR, Scratch::kR);
  const C* b = compute_values<T, C>(ctx, kB, Scratch::kB);
  const C* h0 = compute_values<T, C>(ctx, kInitialH, Scratch::kInitialH);
  const C* c0 =
      spec.has_cell_state ? compute_values<T, C>(ctx, kInitialC, Scratch::kInitialC) : nullptr;
  const C* p =
      spec.has_cell_state ? compute_values<T, C>(ctx, kPeepholes, Scratch::kPeepholes) : nullptr;

  C* projection = scratch<C>(Scratch::kProjection, steps * shape.batch * width);
  C* hidden = scratch<C>(Scratch::kHidden, shape.batch * H);
  C* cell_state = scratch<C>(Scratch::kCell, shape.batch * H);
  C* bias = scratch<C>(Scratch::kBias, width);
  const C** rows = scratch<const C*>(Scratch::kRows, shape.batch);
  std::array<TransposedWeights<C>, kMaxRecurrentBlocks> recurrent;
  StepData<C> step{shape,
                   attrs,
                   0,
                   rows,
                   scratch<C>(Scratch::kGates, shape.batch * width),
                   hidden,
                   cell_state,
                   scratch<C>(Scratch::kExtra, shape.batch * H),
                   recurrent.data(),
                   nullptr,
                   nullptr};

  for (int64_t d = 0; d < shape.directions; ++d) {
    const bool reversed = attrs.reversed(d);
    step.direction = d;
    step.bias = b ? b + d * 2 * width : nullptr;
    step.peepholes = p ? p + d * 3 * H : nullptr;
    for (size_t k = 0; k < blocks; ++k) {
      const GateBlock& block = spec.recurrent_blocks[k];
      recurrent[k] = {r ? r + (d * width + block.first_gate * H) * H : nullptr,
                      block.gate_count * H, H, r_packed ? &packed.r[d * blocks + k] : nullptr};
    }

    // Every step's input projection in one GEMM, rows in X's order.
    cell.input_bias(step.bias, width, bias);
    const TransposedWeights<C> wd{w ? w + d * width * shape.input : nullptr, width, shape.input,
                                  w_packed ? &packed.w[d] : nullptr};
    multiply_transposed(steps * shape.batch, x, shape.input, wd, bias, projection, width);

    load_state(h0, shape, d, hidden);
    if (spec.has_cell_state) load_state(c0, shape, d, cell_state);
    for (int64_t s = 0; s < steps; ++s) {
      // Step s of a reversed direction is each entry's time len - 1 - s: a sequence shorter
      // than X runs backwards from its own last element.
      for (int64_t e = 0; e < shape.batch; ++e) {
        const int64_t t = reversed ? lengths[e] - 1 - s : s;
        rows[e] = s < lengths[e] ? projection + shape.x_row(t, e) * width : nullptr;
      }
      cell.step(step);
      if (!y) continue;
      for (int64_t e = 0; e < shape.batch; ++e) {
        if (rows[e]) {
          const int64_t t = reversed ? lengths[e] - 1 - s : s;
          store(y + shape.y_offset(t, d, e), hidden + e * H, H);
        } else {
          // Times past an entry's length are zero in Y, in either direction.
          std::fill_n(y + shape.y_offset(s, d, e), H, static_cast<T>(0.0f));
        }
      }
    }
    // The last valid step's state (the initial state for an empty sequence).
    for (int64_t e = 0; e < shape.batch; ++e) {
      if (y_h) store(y_h + shape.state_offset(d, e), hidden + e * H, H);
      if (y_c) store(y_c + shape.state_offset(d, e), cell_state + e * H, H);
    }
  }
}

}  // namespace detail

template <class Cell>
void run_recurrent(OpContext& ctx, const RecurrentAttributes& attrs, const CellSpec& spec,
                   const PackedWeights& packed, const Cell& cell) {
  const RecurrentShape shape = check_inputs({ctx.node(), ctx.inputs()}, attrs, spec);
  const int64_t* lengths = read_sequence_lengths(ctx, shape);
  visit_dtype(ctx.input(kX).dtype(), [&]<class T>() {
    if constexpr (detail::is_recurrent_type_v<T>) {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      detail::run_typed<T, C>(ctx, attrs, spec, packed, cell, shape, lengths);
    }
  });
}

// The factory shared by the three ops: parses the attributes and packs constant weights once.
template <class Cell>
CpuKernel make_recurrent_kernel(const NodeInfo& info, CellSpec spec, Cell cell) {
  RecurrentAttributes attrs = parse_recurrent_attributes(info, spec);
  std::shared_ptr<const PackedWeights> packed = pack_constant_weights(info, attrs, spec);
  return [attrs = std::move(attrs), spec = std::move(spec), packed, cell](OpContext& ctx) {
    run_recurrent(ctx, attrs, spec, *packed, cell);
  };
}

}  // namespace kiln::recurrent
