// LSTM: input gate i, output gate o, forget gate f and cell candidate c~ (W, R and B rows in
// that order; peepholes P in the order i, o, f):
//
//   i = f(X·Wiᵀ + H·Riᵀ + Pi ⊙ C + Wbi + Rbi)     f = f(... Pf ⊙ C ...), or 1 - i with input_forget
//   c~ = g(X·Wcᵀ + H·Rcᵀ + Wbc + Rbc)             C = f ⊙ C + i ⊙ c~
//   o = f(X·Woᵀ + H·Roᵀ + Po ⊙ C + Wbo + Rbo)     H = o ⊙ h(C)
//
// The output gate's peephole sees the new cell state.
#include "ops/recurrent_common.h"
#include "ops/recurrent_driver.h"

namespace kiln {
namespace {

using recurrent::StepData;

struct LstmCell {
  bool input_forget = false;

  template <class C>
  void input_bias(const C* b, int64_t gate_width, C* out) const {
    recurrent::sum_input_and_recurrent_bias(b, gate_width, out);
  }

  template <class C>
  void step(const StepData<C>& s) const {
    const int64_t H = s.shape.hidden, width = s.shape.gate_width();
    const recurrent::Activation& f = s.attrs.activation(s.direction, 0);
    const recurrent::Activation& g = s.attrs.activation(s.direction, 1);
    const recurrent::Activation& h = s.attrs.activation(s.direction, 2);
    const C* p = s.peepholes;

    s.recurrent_product(0, s.hidden, 0);
    recurrent::for_each_active_row(s, [&](int64_t b) {
      C* in = s.gates + b * width;
      C* out = in + H;
      C* forget = in + 2 * H;
      C* candidate = in + 3 * H;
      const C* x = s.projected[b];
      C* cell = s.cell + b * H;
      for (int64_t j = 0; j < H; ++j) {
        in[j] += x[j] + (p ? p[j] * cell[j] : C(0));
        forget[j] += x[2 * H + j] + (p ? p[2 * H + j] * cell[j] : C(0));
        candidate[j] += x[3 * H + j];
      }
      recurrent::clip_gate(s.attrs, in, H);
      recurrent::apply_activation(f, in, H);
      if (input_forget) {
        for (int64_t j = 0; j < H; ++j) forget[j] = C(1) - in[j];
      } else {
        recurrent::clip_gate(s.attrs, forget, H);
        recurrent::apply_activation(f, forget, H);
      }
      recurrent::clip_gate(s.attrs, candidate, H);
      recurrent::apply_activation(g, candidate, H);
      for (int64_t j = 0; j < H; ++j) {
        cell[j] = forget[j] * cell[j] + in[j] * candidate[j];
        out[j] += x[H + j] + (p ? p[H + j] * cell[j] : C(0));
      }
      recurrent::clip_gate(s.attrs, out, H);
      recurrent::apply_activation(f, out, H);
      // h(C) goes through the candidate's slot, which is no longer needed.
      std::copy_n(cell, H, candidate);
      recurrent::apply_activation(h, candidate, H);
      C* hidden = s.hidden + b * H;
      for (int64_t j = 0; j < H; ++j) hidden[j] = out[j] * candidate[j];
    });
  }
};

}  // namespace

CpuKernel make_lstm(const NodeInfo& info) {
  LstmCell cell;
  cell.input_forget = info.attr_int("input_forget", 0) != 0;
  return recurrent::make_recurrent_kernel(info, recurrent::lstm_cell_spec(), cell);
}

}  // namespace kiln
